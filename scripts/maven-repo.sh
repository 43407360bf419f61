# Writing artifacts into a Maven repository directory, as Maven's deploy would, with what Maven
# Central requires of each: sourced by scripts/local-repo.sh and gradle-plugin/publish.sh (one
# implementation of the layout and the poms; scripts/release.sh stages a release through them).
#
# HEAPGROWTH_GPG_KEY=KEY (a key id or e-mail in the caller's GnuPG keyring) signs every file
# (FILE.asc, as Central requires); unset, nothing is signed. HEAPGROWTH_GPG_PASSPHRASE, when set,
# is given to gpg (loopback pinentry) instead of asking through its agent.

# The project's metadata, once: the crate's (Cargo.toml), which every pom repeats.
maven_repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
project_url=$(sed -n 's/^repository = "\(.*\)"$/\1/p' "$maven_repo_root/Cargo.toml" | head -n1)
project_license=$(sed -n 's/^license = "\(.*\)"$/\1/p' "$maven_repo_root/Cargo.toml" | head -n1)
[ -n "$project_url" ] && [ "$project_license" = Apache-2.0 ] \
    || { echo "maven-repo: Cargo.toml needs repository = \"...\" and license = \"Apache-2.0\"" >&2; return 1; }

# digests FILE: FILE.sha1 and FILE.md5, as Maven writes them (the bare hex digest).
digests() {
    sha1sum "$1" | cut -d' ' -f1 | tr -d '\n' >"$1.sha1"
    md5sum "$1" | cut -d' ' -f1 | tr -d '\n' >"$1.md5"
}

# sign FILE: FILE.asc, a detached ASCII signature, when HEAPGROWTH_GPG_KEY is set; else nothing.
sign() {
    [ -n "${HEAPGROWTH_GPG_KEY:-}" ] || return 0
    local passphrase=()
    if [ -n "${HEAPGROWTH_GPG_PASSPHRASE:-}" ]; then
        passphrase=(--pinentry-mode loopback --passphrase-fd 0)
    fi
    gpg --batch --yes --quiet --local-user "$HEAPGROWTH_GPG_KEY" "${passphrase[@]}" --armor --detach-sign \
        --output "$1.asc" "$1" <<<"${HEAPGROWTH_GPG_PASSPHRASE:-}" \
        || { echo "maven-repo: gpg could not sign $1 with key $HEAPGROWTH_GPG_KEY" >&2; return 1; }
}

# checksums FILE: its digests and its signature.
checksums() {
    digests "$1"
    sign "$1"
}

# pom_xml ARTIFACT PACKAGING NAME DESCRIPTION [DEPENDENCY_ARTIFACT]: a pom of group dev.heapgrowth,
# version $version, with the name, description, url, license, developers and scm Central checks.
pom_xml() {
    cat <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.heapgrowth</groupId>
  <artifactId>$1</artifactId>
  <version>$version</version>
  <packaging>$2</packaging>
  <name>$3</name>
  <description>$4</description>
  <url>$project_url</url>
  <licenses>
    <license>
      <name>Apache-2.0</name>
      <url>https://www.apache.org/licenses/LICENSE-2.0.txt</url>
    </license>
  </licenses>
  <developers>
    <developer>
      <name>The heapgrowth developers</name>
      <url>$project_url</url>
    </developer>
  </developers>
  <scm>
    <url>$project_url</url>
    <connection>scm:git:$project_url.git</connection>
  </scm>
POM
    if [ $# -ge 5 ]; then
        cat <<POM
  <dependencies>
    <dependency>
      <groupId>dev.heapgrowth</groupId>
      <artifactId>$5</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
POM
    fi
    echo '</project>'
}

# publish_artifact REPO GROUP ARTIFACT VERSION POM [JAR]: GROUP:ARTIFACT:VERSION's pom and jar with
# their checksums, the jar's -sources.jar and -javadoc.jar (taken from beside JAR, where
# scripts/java-docs.sh writes them: a jar without them fails), and the artifact's
# maven-metadata.xml listing every version in REPO.
publish_artifact() {
    local repo=$1 group=$2 artifact=$3 version=$4 pom=$5 jar=${6:-}
    local base=$repo/${group//.//}/$artifact versions classifier
    local dir=$base/$version
    mkdir -p "$dir"
    # Maven's record of the remote repository a file was downloaded from (REPO may be Maven's
    # local repository, which once received these from elsewhere): without it, the files
    # count as installed here, and every build may use them.
    rm -f "$dir/_remote.repositories"
    cp "$pom" "$dir/$artifact-$version.pom"
    checksums "$dir/$artifact-$version.pom"
    if [ -n "$jar" ]; then
        cp "$jar" "$dir/$artifact-$version.jar"
        checksums "$dir/$artifact-$version.jar"
        for classifier in sources javadoc; do
            [ -f "${jar%.jar}-$classifier.jar" ] \
                || { echo "maven-repo: ${jar%.jar}-$classifier.jar missing (scripts/java-docs.sh writes it)" >&2; return 1; }
            cp "${jar%.jar}-$classifier.jar" "$dir/$artifact-$version-$classifier.jar"
            checksums "$dir/$artifact-$version-$classifier.jar"
        done
    fi
    versions=$(find "$base" -mindepth 2 -maxdepth 2 -name "$artifact-*.pom" -printf '%h\n' | xargs -n1 basename | sort -V)
    {
        echo '<?xml version="1.0" encoding="UTF-8"?>'
        echo '<metadata>'
        echo "  <groupId>$group</groupId>"
        echo "  <artifactId>$artifact</artifactId>"
        echo '  <versioning>'
        echo "    <latest>$(tail -n1 <<<"$versions")</latest>"
        echo "    <release>$(tail -n1 <<<"$versions")</release>"
        echo '    <versions>'
        sed 's|.*|      <version>&</version>|' <<<"$versions"
        echo '    </versions>'
        echo "    <lastUpdated>$(date -u +%Y%m%d%H%M%S)</lastUpdated>"
        echo '  </versioning>'
        echo '</metadata>'
    } >"$base/maven-metadata.xml"
    # Not signed: Central writes its own metadata and takes none from an upload.
    digests "$base/maven-metadata.xml"
}
