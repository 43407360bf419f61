# The sources and javadoc jars Maven Central requires beside every jar: sourced by
# scripts/package-java.sh, gradle-plugin/build-plugin.sh and scripts/release.sh.

# sources_and_javadoc_jars PREFIX CLASSPATH SOURCE...: PREFIX-sources.jar holds the SOURCE files
# under their package paths (each path's part from src/.../java/ on), PREFIX-javadoc.jar their
# javadoc (public API; compiled against CLASSPATH).
sources_and_javadoc_jars() {
    local prefix=$1 classpath=$2 dir source
    shift 2
    dir=$(mktemp -d)
    for source in "$@"; do
        local relative=${source#*/java/}
        [ "$relative" != "$source" ] || { echo "java-docs: $source is not under a java/ source root" >&2; rm -rf "$dir"; return 1; }
        mkdir -p "$dir/sources/$(dirname "$relative")"
        cp "$source" "$dir/sources/$relative"
    done
    rm -f "$prefix-sources.jar" "$prefix-javadoc.jar"
    jar --create --file "$prefix-sources.jar" -C "$dir/sources" .
    # -Xdoclint:none: the javadoc comments are written for readers of the code, and doclint's
    # warnings about them (a missing @param) are no errors of the API.
    javadoc -quiet -Xdoclint:none -encoding UTF-8 -d "$dir/javadoc" -cp "$classpath" "$@" >"$dir/javadoc.log" 2>&1 \
        || { cat "$dir/javadoc.log" >&2; rm -rf "$dir"; echo "java-docs: javadoc failed for $prefix" >&2; return 1; }
    jar --create --file "$prefix-javadoc.jar" -C "$dir/javadoc" .
    rm -rf "$dir"
}
