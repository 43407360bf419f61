// The Kotlin DSL twin of ../cart, for today's Gradle (8.x): the same sources, JUnit 5 from Maven
// Central under useJUnitPlatform(). Not run by the tests: this project's machines run Debian's
// Gradle 4.4.1 only, which has no Kotlin DSL (the plugin is compiled against Gradle 8.11.1's API).
// The plugin resolves by id and version from the repository gradle-plugin/publish.sh DIR wrote:
// -PheapgrowthRepo=DIR, by default target/local-repo of this checkout.
pluginManagement {
    repositories {
        maven {
            url = uri(providers.gradleProperty("heapgrowthRepo")
                .getOrElse("$settingsDir/../../../target/local-repo"))
        }
    }
}
rootProject.name = "cart-kotlin"
