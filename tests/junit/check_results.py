#!/usr/bin/env python3
"""Checks JUnit XML results (Surefire's or Gradle's): each expectation is
TEST=pass, TEST=fail, TEST=fail:TEXT (the failure's message or stack trace must contain TEXT)
or TEST=message:TEXT (the failure's message must be exactly TEXT: one line, nothing else)
or TEST=lacks:TEXT (the test ran, and its failure, if any, does not contain TEXT)
or TEST=skipped:TEXT (the test was skipped, its message or stack trace contains TEXT).
A skipped test neither passes nor fails.

usage: check_results.py RESULTS_DIR TEST=EXPECTATION...
"""
import glob
import sys
import xml.etree.ElementTree as ET


def main():
    results_dir, expectations = sys.argv[1], sys.argv[2:]
    cases, messages, skipped = {}, {}, {}
    for path in glob.glob(f"{results_dir}/TEST-*.xml"):
        for case in ET.parse(path).getroot().iter("testcase"):
            name = case.get("name").split("(")[0]
            failure = case.find("failure")
            if failure is None:
                failure = case.find("error")
            text = None if failure is None else (failure.get("message") or "") + (failure.text or "")
            cases[name] = text
            skip = case.find("skipped")
            skipped[name] = None if skip is None else (skip.get("message") or "") + (skip.text or "")
            messages[name] = None if failure is None else failure.get("message") or ""
    problems = []
    for expectation in expectations:
        test, want = expectation.split("=", 1)
        if test not in cases:
            problems.append(f"{test}: not run (ran: {sorted(cases)})")
            continue
        failure = cases[test]
        if want.startswith("skipped:"):
            if skipped[test] is None or want.split(":", 1)[1] not in skipped[test]:
                problems.append(f"{test}: expected to be skipped with {want.split(':', 1)[1]!r}, "
                                f"was {'skipped with ' + repr(skipped[test]) if skipped[test] is not None else 'run'}"
                                + (f":\n{failure}" if failure else ""))
        elif skipped[test] is not None:
            problems.append(f"{test}: skipped ({skipped[test]!r}), expected {want}")
        elif want == "pass" and failure is not None:
            problems.append(f"{test}: expected to pass, failed with:\n{failure}")
        elif want.startswith("fail"):
            if failure is None:
                problems.append(f"{test}: expected to fail, passed")
            elif ":" in want and want.split(":", 1)[1] not in failure:
                problems.append(f"{test}: failure lacks {want.split(':', 1)[1]!r}:\n{failure}")
        elif want.startswith("lacks:"):
            if failure is not None and want.split(":", 1)[1] in failure:
                problems.append(f"{test}: failure contains {want.split(':', 1)[1]!r}:\n{failure}")
        elif want.startswith("message:"):
            if failure is None:
                problems.append(f"{test}: expected to fail, passed")
            elif messages[test] != want.split(":", 1)[1]:
                problems.append(f"{test}: message is not {want.split(':', 1)[1]!r}:\n{messages[test]!r}")
    for problem in problems:
        print(f"check_results: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
