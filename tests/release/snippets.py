"""Extracts the code snippets of Markdown files into files, for tests that build them as written.

A fenced block whose info string has snippet=PROJECT:PATH (```xml snippet=maven:pom.xml) is
written to OUT/PROJECT/PATH; GitHub shows only the info string's first word, the language.
--replace OLD=NEW replaces text in every snippet (the staged repository's path, the checkout's).
--every-block FILE: every xml, groovy, kotlin, toml, rust and java block of FILE must carry a
snippet= tag, so that no pom, build file or cargo snippet there goes untested.

usage: snippets.py --out OUT [--replace OLD=NEW]... [--every-block FILE] FILE...
"""
import argparse
import os
import re
import sys

BUILT_LANGUAGES = {"xml", "groovy", "kotlin", "toml", "rust", "java"}


def blocks(path):
    """(line number, language, tags, text) of each fenced block in the Markdown file PATH."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        opening = re.match(r"^```(\S*)(.*)$", lines[i])
        if opening:
            start = i
            i += 1
            body = []
            while i < len(lines) and lines[i] != "```":
                body.append(lines[i])
                i += 1
            if i == len(lines):
                sys.exit(f"{path}:{start + 1}: a fenced block that never closes")
            tags = dict(tag.split("=", 1) for tag in opening.group(2).split() if "=" in tag)
            yield start + 1, opening.group(1), tags, "\n".join(body) + "\n"
        i += 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--replace", action="append", default=[])
    parser.add_argument("--every-block")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    replacements = [pair.split("=", 1) for pair in args.replace]
    if args.every_block:
        for line, language, tags, _ in blocks(args.every_block):
            if language in BUILT_LANGUAGES and "snippet" not in tags:
                sys.exit(f"{args.every_block}:{line}: a ```{language} block without snippet=PROJECT:PATH, "
                         "which the README test would not build")
    written = set()
    for path in args.files:
        for line, _, tags, text in blocks(path):
            if "snippet" not in tags:
                continue
            project, _, name = tags["snippet"].partition(":")
            target = os.path.join(args.out, project, name)
            if not name or target in written:
                sys.exit(f"{path}:{line}: snippet={tags['snippet']} is empty or not unique")
            written.add(target)
            for old, new in replacements:
                text = text.replace(old, new)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as out:
                out.write(text)
            print(f"{project}/{name}")


main()
