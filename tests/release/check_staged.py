"""Checks a release staged by scripts/release.sh: what a registry upload needs is there and right.

usage: check_staged.py OUT VERSION PROJECT_URL HOST
"""
import hashlib
import os
import sys
import tarfile
import xml.etree.ElementTree as ET
import zipfile

out, version, project_url, host = sys.argv[1:]
maven = os.path.join(out, "maven", "dev", "heapgrowth")
NS = {"m": "http://maven.apache.org/POM/4.0.0"}
errors = []


def fail(message):
    errors.append(message)


def digest(path, algorithm):
    with open(path, "rb") as file:
        return hashlib.new(algorithm, file.read()).hexdigest()


def check_checksums(path):
    for algorithm in ("md5", "sha1"):
        side = f"{path}.{algorithm}"
        if not os.path.isfile(side):
            fail(f"{side} missing")
        elif open(side).read().strip() != digest(path, algorithm):
            fail(f"{side} does not match {os.path.basename(path)}")


def text(pom, path):
    element = pom.find(path, NS)
    return (element.text or "").strip() if element is not None else ""


def check_pom(artifact, packaging):
    path = os.path.join(maven, artifact, version, f"{artifact}-{version}.pom")
    if not os.path.isfile(path):
        return fail(f"{path} missing")
    check_checksums(path)
    pom = ET.parse(path).getroot()
    want = {"m:groupId": "dev.heapgrowth", "m:artifactId": artifact, "m:version": version,
            "m:url": project_url, "m:licenses/m:license/m:name": "Apache-2.0",
            "m:scm/m:url": project_url}
    if packaging:
        want["m:packaging"] = packaging
    for field, value in want.items():
        if text(pom, field) != value:
            fail(f"{artifact}'s pom: {field} is {text(pom, field)!r}, not {value!r}")
    # What Maven Central requires besides, present and not empty.
    for field in ("m:name", "m:description", "m:licenses/m:license/m:url",
                  "m:developers/m:developer/m:name", "m:scm/m:connection"):
        if not text(pom, field):
            fail(f"{artifact}'s pom lacks {field}")
    return pom


def check_jar(artifact, must_hold):
    directory = os.path.join(maven, artifact, version)
    for classifier, entries in (("", must_hold), ("-sources", [".java"]), ("-javadoc", ["index.html"])):
        path = os.path.join(directory, f"{artifact}-{version}{classifier}.jar")
        if not os.path.isfile(path):
            fail(f"{path} missing")
            continue
        check_checksums(path)
        names = zipfile.ZipFile(path).namelist()
        for entry in entries:
            if not any(name.endswith(entry) for name in names):
                fail(f"{os.path.basename(path)} holds no {entry}")


natives = [f"META-INF/native/linux-x86_64/{name}" for name in ("libheapgrowth.so", "libheapgrowth_agent.so")]
check_pom("heapgrowth-junit", "jar")
check_jar("heapgrowth-junit", natives + ["dev/heapgrowth/junit/HeapGrowthTest.class"])
check_pom("heapgrowth-maven-plugin", "maven-plugin")
check_jar("heapgrowth-maven-plugin", ["META-INF/maven/plugin.xml"])
check_pom("heapgrowth-gradle-plugin", "jar")
check_jar("heapgrowth-gradle-plugin", ["META-INF/gradle-plugins/dev.heapgrowth.properties"])
marker = check_pom("dev.heapgrowth.gradle.plugin", "pom")
if marker is not None and text(marker, "m:dependencies/m:dependency/m:artifactId") != "heapgrowth-gradle-plugin":
    fail("the plugin marker does not depend on heapgrowth-gradle-plugin")
for artifact in os.listdir(maven):
    metadata = os.path.join(maven, artifact, "maven-metadata.xml")
    check_checksums(metadata)
    if text(ET.parse(metadata).getroot(), "versioning/release") != version:
        fail(f"{metadata} does not name {version} as the release")

# The command-line tool and the crate, each with its .sha256.
name = f"heapgrowth-{version}-{host}"
for file in (f"{name}.tar.gz", f"heapgrowth-{version}.crate"):
    path = os.path.join(out, file)
    if not os.path.isfile(path):
        fail(f"{file} missing")
        continue
    line = open(f"{path}.sha256").read().split()
    if line != [digest(path, "sha256"), file]:
        fail(f"{file}.sha256 does not match it")
with tarfile.open(os.path.join(out, f"{name}.tar.gz")) as tar:
    members = {member.name: member for member in tar.getmembers()}
    want = {name, f"{name}/heapgrowth", f"{name}/README.md", f"{name}/LICENSE"}
    if set(members) != want:
        fail(f"the tarball holds {sorted(members)}, not {sorted(want)}")
    elif not members[f"{name}/heapgrowth"].mode & 0o111:
        fail("the tarball's heapgrowth is not executable")
with tarfile.open(os.path.join(out, f"heapgrowth-{version}.crate")) as crate:
    names = set(crate.getnames())
    for file in ("Cargo.toml", "LICENSE", "README.md", "build.rs", "agent", "jvm-glue"):
        if not any(n == f"heapgrowth-{version}/{file}" or n.startswith(f"heapgrowth-{version}/{file}/") for n in names):
            fail(f"the crate lacks {file}")

if errors:
    sys.exit("check_staged: " + "\ncheck_staged: ".join(errors))
print(f"check_staged: {out} holds heapgrowth {version}: 4 Maven artifacts, the CLI for {host}, the crate")
