/*
 * heapgrowth's JVMTI agent: takes the capabilities heapgrowth needs while the JVM starts and
 * hands its JVMTI environment to the Rust host.
 *
 * Why this is a separate library written in C:
 * - can_generate_field_modification_events can only be added in the OnLoad phase, that is by
 *   an agent named with -agentpath: when the JVM starts. An environment obtained later (from
 *   JNI_OnLoad or GetEnv in the live phase) never gets it.
 * - -agentpath: needs a shared library file. The heapgrowth binary, or a test binary that uses
 *   heapgrowth as a dependency, is an executable and cannot be loaded as an agent, and after
 *   `cargo install` there is no library beside it. So build.rs compiles this file, the bytes are
 *   embedded in the Rust code, and at run time they are written to a private temporary directory
 *   and passed to -agentpath:.
 * - It has no logic worth writing in Rust, and C needs no panic guard at the JVM boundary.
 * The Rust host finds this library with dlopen(RTLD_NOLOAD) and calls
 * heapgrowth_agent_jvmti_env(); all further JVMTI calls are made from Rust (src/jvmti).
 */
#include <string.h>
#include <jvmti.h>

static jvmtiEnv *heapgrowth_jvmti = NULL;

/* The agent's JVMTI environment, or NULL if Agent_OnLoad could not get one. */
JNIEXPORT void *JNICALL heapgrowth_agent_jvmti_env(void) {
    return heapgrowth_jvmti;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)options;
    (void)reserved;
    jvmtiEnv *jvmti = NULL;
    /*
     * Never return an error here: a failing Agent_OnLoad makes the JVM exit the whole process
     * during initialisation, before Rust can report anything. The host sees a NULL environment
     * (or missing capabilities) and turns that into a typed error instead.
     */
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK || jvmti == NULL) {
        return JNI_OK;
    }
    jvmtiCapabilities potential;
    memset(&potential, 0, sizeof potential);
    if ((*jvmti)->GetPotentialCapabilities(jvmti, &potential) != JVMTI_ERROR_NONE) {
        return JNI_OK;
    }
    /* Ask only for what is potentially available, so AddCapabilities cannot fail for a missing
     * one; the host reads back what it got with GetCapabilities. */
    jvmtiCapabilities wanted;
    memset(&wanted, 0, sizeof wanted);
    wanted.can_tag_objects = potential.can_tag_objects;
    wanted.can_generate_field_modification_events = potential.can_generate_field_modification_events;
    wanted.can_generate_field_access_events = potential.can_generate_field_access_events;
    wanted.can_get_line_numbers = potential.can_get_line_numbers;
    wanted.can_get_source_file_name = potential.can_get_source_file_name;
    wanted.can_generate_sampled_object_alloc_events = potential.can_generate_sampled_object_alloc_events;
    wanted.can_generate_object_free_events = potential.can_generate_object_free_events;
    (*jvmti)->AddCapabilities(jvmti, &wanted);
    /*
     * Sample every allocation once sampling is switched on (the event stays off until
     * attribution's last resort enables it; until then the interval costs nothing). It must be
     * set here, before any thread exists: a thread computes its next sample point from the
     * interval in force at its previous sample, so an interval set later reaches a running
     * thread (the test thread of a JUnit run) only after up to 512 KiB of its allocations.
     */
    if (wanted.can_generate_sampled_object_alloc_events) {
        (*jvmti)->SetHeapSamplingInterval(jvmti, 0);
    }
    heapgrowth_jvmti = jvmti;
    return JNI_OK;
}

/* heapgrowth never attaches this agent to a running JVM: there the OnLoad-only capabilities it
 * exists for cannot be had, so refuse instead of running half-equipped. */
JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved) {
    (void)vm;
    (void)options;
    (void)reserved;
    return JNI_ERR;
}
