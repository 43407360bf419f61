# Writing artifacts into a Maven repository directory, as Maven's deploy would: sourced by
# scripts/local-repo.sh and gradle-plugin/publish.sh (one implementation of the layout).

# checksums FILE: FILE.sha1 and FILE.md5, as Maven writes them (the bare hex digest).
checksums() {
    sha1sum "$1" | cut -d' ' -f1 | tr -d '\n' >"$1.sha1"
    md5sum "$1" | cut -d' ' -f1 | tr -d '\n' >"$1.md5"
}

# publish_artifact REPO GROUP ARTIFACT VERSION POM [JAR]: GROUP:ARTIFACT:VERSION's pom (and jar)
# with checksums, and the artifact's maven-metadata.xml listing every version in REPO.
publish_artifact() {
    local repo=$1 group=$2 artifact=$3 version=$4 pom=$5 jar=${6:-}
    local base=$repo/${group//.//}/$artifact versions
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
    checksums "$base/maven-metadata.xml"
}
