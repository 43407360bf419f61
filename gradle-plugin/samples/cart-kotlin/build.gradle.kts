// The Kotlin DSL twin of ../cart/build.gradle for today's Gradle (see settings.gradle.kts).
plugins {
    java
    id("dev.heapgrowth") version "0.1.0"
}

repositories {
    mavenCentral()
}

dependencies {
    testImplementation(platform("org.junit:junit-bom:5.14.1"))
    testImplementation("org.junit.jupiter:junit-jupiter")
    testRuntimeOnly("org.junit.platform:junit-platform-launcher")
    // ../cart's test class also carries @RunWith(JUnitPlatform::class) for Gradle 4.4.1; here the
    // Jupiter engine runs it directly and the runner is only needed to compile it.
    testCompileOnly("org.junit.platform:junit-platform-runner")
}

sourceSets {
    main { java.setSrcDirs(listOf("../cart/src/main/java")) }
    test { java.setSrcDirs(listOf("../cart/src/test/java")) }
}

heapGrowth {
    maxSnapshots = 5                                    // Gradle 8.2+; before: maxSnapshots.set(5)
    baseline = layout.projectDirectory.file("heapgrowth-baseline.txt")
}

tasks.test {
    useJUnitPlatform()
    // The plugin names each failed test's report on the console; with FULL the tree report
    // itself is printed there too.
    testLogging { exceptionFormat = org.gradle.api.tasks.testing.logging.TestExceptionFormat.FULL }
}
