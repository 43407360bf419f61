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
 * heapgrowth_agent_jvmti_env(); all further JVMTI calls are made from Rust (src/jvm/jvmti).
 *
 * The same library, loaded into a running JVM through the attach mechanism, is the recorder of
 * `heapgrowth watch`: Agent_OnAttach (at the end of this file) samples allocations itself, since
 * there is no Rust in that process. Only live-phase capabilities exist there (tagging, sampled
 * allocations); field watches need can_generate_field_modification_events, which only
 * Agent_OnLoad can add, so watch mode has none.
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


/* ==== Live-loaded allocation sampling (`heapgrowth watch --pid`) ====
 *
 * The Rust host drives this section from src/attach/agent_sampling.rs. Its twin, for a JVM
 * heapgrowth started or a test JVM, is src/jvm/jvmti/allocation_sampling.rs, in Rust.
 *
 * In a running JVM there is no Rust in the process, so the recorder of attribution's last
 * resort runs here: the allocation stacks of sampled objects of a few named classes, each
 * sampled object tagged with its stack's id, and the objects of each stack still alive counted
 * on demand. heapgrowth sends one command per `load` of this library (HotSpot calls
 * Agent_OnAttach again on every load of the same path and never unloads an agent; the library
 * is also linked -z nodelete, so a JNI_ERR return, after which the JVM dlcloses its handle,
 * cannot unmap code that an event or the watchdog thread still runs):
 *
 *   start,<reply file>,<interval bytes>,<class signature>[,<class signature>...]
 *   report,<reply file>,<1: full GC first | 0>
 *   interval,<reply file>,<interval bytes>   (the running sampling's interval, from now on)
 *   stop,<reply file>
 *
 * Every command writes its reply file (to a temporary name, then renamed): `ok`, followed by
 * the report for `report`, or `error<TAB><message>`; it returns JNI_OK or JNI_ERR to match.
 *
 * Why it is built this way:
 * - Each `start` gets a JVMTI environment of its own and `stop` disposes it: that drops every
 *   tag at once (clearing them one by one would need the tagged objects back) and leaves any
 *   other environment, such as Agent_OnLoad's, alone. A second environment that is never
 *   disposed owns the raw monitor, so an event handler that was already on its way when the
 *   sampling environment went away can still take the monitor and see that it must not touch
 *   that environment.
 * - All state is guarded by that one monitor, event handlers included. It serialises only the
 *   samples (one allocation in `interval` bytes of each thread), not allocation itself.
 * - Nothing here calls Java code while holding the monitor: a thread blocked on it in an event
 *   could hold a lock that Java code needs.
 * - A watchdog thread ends the sampling by itself once the directory of the reply file is
 *   gone: heapgrowth deletes its private directory when it exits, also on Ctrl-C, so a
 *   heapgrowth that never sent `stop` does not leave the JVM sampling for the rest of its life.
 * - Every table is bounded; what does not fit is counted as dropped, never grown.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_CLASS_NAMES 16
/* Class objects matched: one name can be loaded by several class loaders. */
#define MAX_CLASS_REFS 64
#define MAX_STACKS 1024
/* Open addressing at most half full keeps probe sequences short. */
#define STACK_SLOTS (2 * MAX_STACKS)
/* As src/jvm/jvmti/stacks.rs: enough to get past a library's frames to the user's. */
#define MAX_FRAMES 64
/* Tagged objects alive at once, about 50 bytes of the JVM's native memory each. */
#define MAX_TAGGED 100000
/* Samples of watched classes recorded per second at most: each costs a stack trace (a few
 * microseconds) under the lock, so a watched class allocated at gigabytes a second would
 * otherwise cost its threads much of their time. Skipped ones are counted. */
#define MAX_RECORDED_PER_SECOND 5000
/* HotSpot's default interval, restored at stop (JVMTI cannot read the interval in force). */
#define HOTSPOT_DEFAULT_INTERVAL (512 * 1024)
#define WATCHDOG_PERIOD_MS 1000
#define METHOD_SLOTS 4096
#define MESSAGE_BYTES 512

typedef struct {
    int name;   /* index into names */
    int depth;
    jlong samples;
    uint64_t hash;
    jvmtiFrameInfo *frames;
} Stack;

/* Tagged objects still alive, as far as ObjectFree events tell (where the JVM offers them; else
 * as counted at the last report plus those tagged since). Atomic, not under the lock: the JVM
 * posts ObjectFree from threads that may wait for a thread holding the lock in SetTag. */
static jlong tagged_live = 0;

/* The environment that owns the monitor; never disposed. */
static jvmtiEnv *control_env = NULL;
static jrawMonitorID lock = NULL;

/* Guarded by `lock`. */
static struct {
    int active;
    int paused;               /* while a report collects and counts */
    unsigned generation;      /* counts sessions, so an old watchdog knows it is old */
    jvmtiEnv *env;            /* this session's environment */
    char *names[MAX_CLASS_NAMES];
    int name_count;
    int loaded[MAX_CLASS_NAMES]; /* class objects matched per name */
    jclass refs[MAX_CLASS_REFS]; /* global references */
    int ref_name[MAX_CLASS_REFS];
    int ref_count;
    int class_refs_full;
    Stack stacks[MAX_STACKS];
    int stack_count;
    int slots[STACK_SLOTS];   /* stack index + 1, 0 = empty */
    jint interval;
    jlong events, samples, dropped_table_full, dropped_tag_budget, dropped_errors, skipped;
    time_t second;            /* of the samples counted in recorded_this_second */
    int recorded_this_second;
    char dir[4096];           /* the reply file's directory, watched by the watchdog */
    char stopped_because[MESSAGE_BYTES];
} s;

static uint64_t hash_stack(int name, const jvmtiFrameInfo *frames, int depth) {
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)name; /* FNV-1a over the words */
    for (int i = 0; i < depth; i++) {
        h = (h ^ (uint64_t)(uintptr_t)frames[i].method) * 1099511628211ULL;
        h = (h ^ (uint64_t)frames[i].location) * 1099511628211ULL;
    }
    return h;
}

/* The stack's index in s.stacks, added if new; -1 if the table is full. Under the lock. */
static int intern_stack(int name, const jvmtiFrameInfo *frames, int depth) {
    uint64_t h = hash_stack(name, frames, depth);
    for (unsigned probe = 0; probe < STACK_SLOTS; probe++) {
        int *slot = &s.slots[(h + probe) % STACK_SLOTS];
        if (*slot == 0) {
            if (s.stack_count >= MAX_STACKS) return -1;
            jvmtiFrameInfo *copy = malloc(sizeof *copy * (depth > 0 ? depth : 1));
            if (copy == NULL) return -1;
            memcpy(copy, frames, sizeof *copy * depth);
            Stack *stack = &s.stacks[s.stack_count];
            stack->name = name;
            stack->depth = depth;
            stack->samples = 0;
            stack->hash = h;
            stack->frames = copy;
            *slot = ++s.stack_count;
            return s.stack_count - 1;
        }
        Stack *stack = &s.stacks[*slot - 1];
        if (stack->hash == h && stack->name == name && stack->depth == depth &&
            memcmp(stack->frames, frames, sizeof *frames * depth) == 0) {
            return *slot - 1;
        }
    }
    return -1;
}

/* The index of the name `klass` is watched under, or -1; under the lock. */
static int watched_name(JNIEnv *jni, jclass klass) {
    for (int i = 0; i < s.ref_count; i++) {
        if ((*jni)->IsSameObject(jni, klass, s.refs[i])) return s.ref_name[i];
    }
    return -1;
}

/* Matches a newly seen class object against the names; under the lock. */
static void match_class(jvmtiEnv *jvmti, JNIEnv *jni, jclass klass) {
    char *signature = NULL;
    if ((*jvmti)->GetClassSignature(jvmti, klass, &signature, NULL) != JVMTI_ERROR_NONE) return;
    for (int i = 0; i < s.name_count; i++) {
        if (strcmp(signature, s.names[i]) != 0) continue;
        /* A class prepared while start listed the loaded ones is seen twice. */
        if (watched_name(jni, klass) >= 0) break;
        if (s.ref_count >= MAX_CLASS_REFS) {
            s.class_refs_full = 1;
            break;
        }
        jclass ref = (*jni)->NewGlobalRef(jni, klass);
        if (ref != NULL) {
            s.refs[s.ref_count] = ref;
            s.ref_name[s.ref_count++] = i;
            s.loaded[i]++;
        }
        break;
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)signature);
}

static void JNICALL on_sampled_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                                     jobject object, jclass klass, jlong size) {
    (void)thread;
    (void)size;
    if ((*control_env)->RawMonitorEnter(control_env, lock) != JVMTI_ERROR_NONE) return;
    /* A handler that got here after stop, or from a disposed session, must not use `jvmti`. */
    if (s.active && !s.paused && jvmti == s.env) {
        s.events++;
        int name = watched_name(jni, klass);
        if (name >= 0) {
            s.samples++;
            jvmtiFrameInfo frames[MAX_FRAMES];
            jint depth = 0;
            int stack;
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
            if (now.tv_sec != s.second) {
                s.second = now.tv_sec;
                s.recorded_this_second = 0;
            }
            if (s.recorded_this_second >= MAX_RECORDED_PER_SECOND) {
                s.skipped++;
            } else if (__atomic_load_n(&tagged_live, __ATOMIC_RELAXED) >= MAX_TAGGED) {
                s.dropped_tag_budget++;
            } else if ((*jvmti)->GetStackTrace(jvmti, NULL, 0, MAX_FRAMES, frames, &depth) !=
                       JVMTI_ERROR_NONE) {
                s.dropped_errors++;
            } else if ((stack = intern_stack(name, frames, depth)) < 0) {
                s.dropped_table_full++;
            } else if ((*jvmti)->SetTag(jvmti, object, (jlong)stack + 1) != JVMTI_ERROR_NONE) {
                s.dropped_errors++;
            } else {
                s.stacks[stack].samples++;
                s.recorded_this_second++;
                __atomic_add_fetch(&tagged_live, 1, __ATOMIC_RELAXED);
            }
        }
    }
    (*control_env)->RawMonitorExit(control_env, lock);
}

/* Only the tag budget is kept here; what a report counts comes from the tags themselves. */
static void JNICALL on_object_free(jvmtiEnv *jvmti, jlong tag) {
    (void)jvmti;
    (void)tag;
    __atomic_sub_fetch(&tagged_live, 1, __ATOMIC_RELAXED);
}

/* Classes the sampling names that are loaded after it started. */
static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass) {
    (void)thread;
    if ((*control_env)->RawMonitorEnter(control_env, lock) != JVMTI_ERROR_NONE) return;
    if (s.active && jvmti == s.env && !s.class_refs_full) match_class(jvmti, jni, klass);
    (*control_env)->RawMonitorExit(control_env, lock);
}

/* Ends the session: events off, every tag gone with the environment, tables freed. Under the
 * lock; `jni` is the calling thread's. */
static void stop_locked(JNIEnv *jni, const char *because) {
    if (!s.active) return;
    jvmtiEnv *env = s.env;
    (*env)->SetEventNotificationMode(env, JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    (*env)->SetEventNotificationMode(env, JVMTI_DISABLE, JVMTI_EVENT_CLASS_PREPARE, NULL);
    (*env)->SetEventNotificationMode(env, JVMTI_DISABLE, JVMTI_EVENT_OBJECT_FREE, NULL);
    (*env)->SetHeapSamplingInterval(env, HOTSPOT_DEFAULT_INTERVAL);
    (*env)->DisposeEnvironment(env);
    for (int i = 0; i < s.ref_count; i++) (*jni)->DeleteGlobalRef(jni, s.refs[i]);
    for (int i = 0; i < s.stack_count; i++) free(s.stacks[i].frames);
    for (int i = 0; i < s.name_count; i++) free(s.names[i]);
    unsigned generation = s.generation;
    memset(&s, 0, sizeof s);
    __atomic_store_n(&tagged_live, 0, __ATOMIC_RELAXED);
    s.generation = generation + 1;
    snprintf(s.stopped_because, sizeof s.stopped_because, "%s", because);
    (*control_env)->RawMonitorNotifyAll(control_env, lock);
}

static void JNICALL watchdog(jvmtiEnv *jvmti, JNIEnv *jni, void *arg) {
    (void)jvmti;
    unsigned generation = (unsigned)(uintptr_t)arg;
    if ((*control_env)->RawMonitorEnter(control_env, lock) != JVMTI_ERROR_NONE) return;
    while (s.active && s.generation == generation) {
        struct stat st;
        if (stat(s.dir, &st) != 0 && errno == ENOENT) {
            stop_locked(jni, "heapgrowth's directory is gone (heapgrowth ended without stopping "
                             "the sampling), so the agent stopped it");
            break;
        }
        jvmtiError error = (*control_env)->RawMonitorWait(control_env, lock, WATCHDOG_PERIOD_MS);
        /* An interrupt is cleared by the wait; anything else (the JVM dying) would repeat at
         * once, and a watchdog must not spin. */
        if (error != JVMTI_ERROR_NONE && error != JVMTI_ERROR_INTERRUPT) break;
    }
    (*control_env)->RawMonitorExit(control_env, lock);
}

/* `message` gets why a command failed. */
typedef struct {
    char text[MESSAGE_BYTES];
} Message;

static jint fail(Message *message, const char *what, jvmtiError error) {
    if (error == JVMTI_ERROR_NONE) {
        snprintf(message->text, sizeof message->text, "%s", what);
    } else {
        snprintf(message->text, sizeof message->text, "%s (JVMTI error %d)", what, (int)error);
    }
    return JNI_ERR;
}

static jint start_watchdog(JNIEnv *jni, unsigned generation, Message *message) {
    jclass thread_class = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID init = thread_class == NULL ? NULL
        : (*jni)->GetMethodID(jni, thread_class, "<init>", "(Ljava/lang/String;)V");
    jstring name = init == NULL ? NULL
        : (*jni)->NewStringUTF(jni, "heapgrowth sampling watchdog");
    jobject thread = name == NULL ? NULL : (*jni)->NewObject(jni, thread_class, init, name);
    if (thread == NULL) {
        (*jni)->ExceptionClear(jni);
        return fail(message, "cannot create the watchdog thread", JVMTI_ERROR_NONE);
    }
    jvmtiError error = (*control_env)->RunAgentThread(control_env, thread, watchdog,
                                                      (void *)(uintptr_t)generation,
                                                      JVMTI_THREAD_MIN_PRIORITY);
    return error == JVMTI_ERROR_NONE ? JNI_OK
        : fail(message, "cannot start the watchdog thread", error);
}

static jint start(JavaVM *vm, JNIEnv *jni, char **args, int count, const char *reply,
                  Message *message) {
    if (count < 4) return fail(message, "start needs an interval and class names", JVMTI_ERROR_NONE);
    char *end = NULL;
    long interval = strtol(args[2], &end, 10);
    if (*args[2] == '\0' || *end != '\0' || interval < 0 || interval > INT32_MAX) {
        return fail(message, "the interval is not a number of bytes", JVMTI_ERROR_NONE);
    }
    if (count - 3 > MAX_CLASS_NAMES) return fail(message, "too many classes", JVMTI_ERROR_NONE);
    const char *slash = strrchr(reply, '/');
    if (slash == NULL || (size_t)(slash - reply) >= sizeof s.dir) {
        return fail(message, "the reply file needs an absolute path", JVMTI_ERROR_NONE);
    }
    if (control_env != NULL) {
        /* Before a new environment asks for the capabilities: the running sampling's holds
         * can_generate_sampled_object_alloc_events, which only one environment can have. */
        (*control_env)->RawMonitorEnter(control_env, lock);
        int active = s.active;
        (*control_env)->RawMonitorExit(control_env, lock);
        if (active) return fail(message, "allocation sampling runs already: stop it first", JVMTI_ERROR_NONE);
    } else {
        jvmtiEnv *env = NULL;
        if ((*vm)->GetEnv(vm, (void **)&env, JVMTI_VERSION_11) != JNI_OK || env == NULL) {
            return fail(message, "this JVM offers no JVMTI 11 environment (JDK 11 or newer is needed)",
                        JVMTI_ERROR_NONE);
        }
        /* Reports resolve frames with this environment (see put_stacks). */
        jvmtiCapabilities potential, names;
        memset(&potential, 0, sizeof potential);
        memset(&names, 0, sizeof names);
        if ((*env)->GetPotentialCapabilities(env, &potential) == JVMTI_ERROR_NONE) {
            names.can_get_line_numbers = potential.can_get_line_numbers;
            names.can_get_source_file_name = potential.can_get_source_file_name;
            (*env)->AddCapabilities(env, &names);
        }
        jvmtiError error = (*env)->CreateRawMonitor(env, "heapgrowth sampling", &lock);
        if (error != JVMTI_ERROR_NONE) return fail(message, "cannot create a raw monitor", error);
        control_env = env;
    }

    jvmtiEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, JVMTI_VERSION_11) != JNI_OK || env == NULL) {
        return fail(message, "cannot get a JVMTI environment", JVMTI_ERROR_NONE);
    }
    jvmtiCapabilities potential, wanted;
    memset(&potential, 0, sizeof potential);
    memset(&wanted, 0, sizeof wanted);
    jvmtiError error = (*env)->GetPotentialCapabilities(env, &potential);
    if (error == JVMTI_ERROR_NONE &&
        (!potential.can_tag_objects || !potential.can_generate_sampled_object_alloc_events)) {
        (*env)->DisposeEnvironment(env);
        return fail(message, "this JVM does not offer can_tag_objects and "
                             "can_generate_sampled_object_alloc_events to an agent loaded into it "
                             "(only one agent at a time can have the second: another agent in "
                             "this JVM, a profiler, may hold it)", JVMTI_ERROR_NONE);
    }
    wanted.can_tag_objects = 1;
    wanted.can_generate_sampled_object_alloc_events = 1;
    wanted.can_generate_object_free_events = potential.can_generate_object_free_events;
    if (error == JVMTI_ERROR_NONE) error = (*env)->AddCapabilities(env, &wanted);
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    callbacks.SampledObjectAlloc = on_sampled_alloc;
    callbacks.ClassPrepare = on_class_prepare;
    callbacks.ObjectFree = on_object_free;
    if (error == JVMTI_ERROR_NONE) error = (*env)->SetEventCallbacks(env, &callbacks, sizeof callbacks);
    if (error != JVMTI_ERROR_NONE) {
        (*env)->DisposeEnvironment(env);
        return fail(message, "cannot set up the JVMTI environment", error);
    }

    (*control_env)->RawMonitorEnter(control_env, lock);
    if (s.active) {
        (*control_env)->RawMonitorExit(control_env, lock);
        (*env)->DisposeEnvironment(env);
        return fail(message, "allocation sampling runs already: stop it first", JVMTI_ERROR_NONE);
    }
    s.env = env;
    s.interval = (jint)interval;
    memcpy(s.dir, reply, (size_t)(slash - reply));
    s.dir[slash - reply] = '\0';
    s.stopped_because[0] = '\0';
    for (int i = 3; i < count; i++) {
        s.names[s.name_count] = strdup(args[i]);
        if (s.names[s.name_count] != NULL) s.name_count++;
    }
    /* From here on stop_locked undoes everything. */
    s.active = 1;
    /* ClassPrepare before the list of loaded classes, so that no class can be prepared between
     * the two unseen (its handler waits for the lock, and a class seen twice counts once). A
     * failure only loses the classes loaded later, so it does not fail the start. */
    (*env)->SetEventNotificationMode(env, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL);
    jint classes_count = 0;
    jclass *classes = NULL;
    error = (*env)->GetLoadedClasses(env, &classes_count, &classes);
    if (error == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < classes_count; i++) {
            match_class(env, jni, classes[i]);
            (*jni)->DeleteLocalRef(jni, classes[i]);
        }
        (*env)->Deallocate(env, (unsigned char *)classes);
    }
    if (error == JVMTI_ERROR_NONE) error = (*env)->SetHeapSamplingInterval(env, s.interval);
    unsigned generation = s.generation;
    (*control_env)->RawMonitorExit(control_env, lock);
    jint started = error == JVMTI_ERROR_NONE ? start_watchdog(jni, generation, message)
        : fail(message, "cannot find the loaded classes or set the sampling interval", error);

    (*control_env)->RawMonitorEnter(control_env, lock);
    if (started == JNI_OK && !(s.active && s.generation == generation)) {
        started = fail(message, "the sampling was stopped while it started", JVMTI_ERROR_NONE);
    }
    if (started == JNI_OK) {
        /* ObjectFree only makes the tag budget exact: a failure does not fail the start. */
        if (wanted.can_generate_object_free_events) {
            (*env)->SetEventNotificationMode(env, JVMTI_ENABLE, JVMTI_EVENT_OBJECT_FREE, NULL);
        }
        error = (*env)->SetEventNotificationMode(env, JVMTI_ENABLE,
                                                 JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
        if (error != JVMTI_ERROR_NONE) {
            started = fail(message, "cannot enable SampledObjectAlloc events", error);
        }
    }
    if (started != JNI_OK) stop_locked(jni, "its start failed");
    (*control_env)->RawMonitorExit(control_env, lock);
    return started;
}

/* Writes `text` with tab, newline, carriage return and backslash escaped: a field of a line. */
static void put_field(FILE *out, const char *text) {
    fputc('\t', out);
    for (const char *c = text == NULL ? "" : text; *c != '\0'; c++) {
        switch (*c) {
        case '\t': fputs("\\t", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\\': fputs("\\\\", out); break;
        default: fputc(*c, out);
        }
    }
}

/* `Class.getProtectionDomain().getCodeSource().getLocation().toString()`, as heapgrowth's Java
 * glue computes it in `heapgrowth run`; NULL for the JDK's classes or on any exception. The
 * result is malloc'd. */
static char *code_source(JNIEnv *jni, jclass klass) {
    char *result = NULL;
    if ((*jni)->PushLocalFrame(jni, 16) != JNI_OK) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    static const char *const calls[][3] = {
        {"java/lang/Class", "getProtectionDomain", "()Ljava/security/ProtectionDomain;"},
        {"java/security/ProtectionDomain", "getCodeSource", "()Ljava/security/CodeSource;"},
        {"java/security/CodeSource", "getLocation", "()Ljava/net/URL;"},
        {"java/net/URL", "toString", "()Ljava/lang/String;"},
    };
    jobject value = klass;
    for (size_t i = 0; i < sizeof calls / sizeof calls[0] && value != NULL; i++) {
        jclass type = (*jni)->FindClass(jni, calls[i][0]);
        jmethodID method = type == NULL ? NULL
            : (*jni)->GetMethodID(jni, type, calls[i][1], calls[i][2]);
        value = method == NULL ? NULL : (*jni)->CallObjectMethod(jni, value, method);
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni);
            value = NULL;
        }
    }
    if (value != NULL) {
        const char *chars = (*jni)->GetStringUTFChars(jni, (jstring)value, NULL);
        if (chars != NULL) {
            result = strdup(chars);
            (*jni)->ReleaseStringUTFChars(jni, (jstring)value, chars);
        }
        (*jni)->ExceptionClear(jni);
    }
    (*jni)->PopLocalFrame(jni, NULL);
    return result;
}

/* What a report needs to know of a method, resolved once per report. */
typedef struct {
    jmethodID id;
    char *class_signature, *name, *file, *code_source;
    jint line_count;
    jvmtiLineNumberEntry *lines;
} Method;

static void resolve_method(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID id, Method *m) {
    memset(m, 0, sizeof *m);
    m->id = id;
    jclass klass = NULL;
    if ((*jvmti)->GetMethodDeclaringClass(jvmti, id, &klass) != JVMTI_ERROR_NONE) return;
    (*jvmti)->GetClassSignature(jvmti, klass, &m->class_signature, NULL);
    (*jvmti)->GetMethodName(jvmti, id, &m->name, NULL, NULL);
    if ((*jvmti)->GetSourceFileName(jvmti, klass, &m->file) != JVMTI_ERROR_NONE) m->file = NULL;
    if ((*jvmti)->GetLineNumberTable(jvmti, id, &m->line_count, &m->lines) != JVMTI_ERROR_NONE) {
        m->lines = NULL;
        m->line_count = 0;
    }
    m->code_source = code_source(jni, klass);
    (*jni)->DeleteLocalRef(jni, klass);
}

static void deallocate(jvmtiEnv *jvmti, void *memory) {
    if (memory != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char *)memory);
}

static void release_method(jvmtiEnv *jvmti, Method *m) {
    deallocate(jvmti, m->class_signature);
    deallocate(jvmti, m->name);
    deallocate(jvmti, m->file);
    deallocate(jvmti, m->lines);
    free(m->code_source);
}

static void put_frame(FILE *out, const Method *m, jlocation location) {
    jint line = -1;
    jlocation best = -1;
    for (jint i = 0; i < m->line_count; i++) {
        if (m->lines[i].start_location <= location && m->lines[i].start_location > best) {
            best = m->lines[i].start_location;
            line = m->lines[i].line_number;
        }
    }
    fputs("frame", out);
    put_field(out, m->class_signature);
    put_field(out, m->name);
    put_field(out, m->file);
    fprintf(out, "\t%d", (int)line);
    put_field(out, m->code_source);
    fputc('\n', out);
}

/* A stack copied out of the table, to be resolved without the lock. */
typedef struct {
    int name;
    int depth;
    jlong samples, live;
    jvmtiFrameInfo frames[MAX_FRAMES];
} Copied;

/* Method ids outlive environments, so frames are resolved with the control environment: the
 * session's may be disposed by the watchdog meanwhile. */
static void put_stacks(JNIEnv *jni, FILE *out, char *const *names, const Copied *copied,
                       int stacks) {
    Method *methods = calloc(METHOD_SLOTS, sizeof *methods);
    for (int i = 0; i < stacks; i++) {
        if (copied[i].live == 0) continue;
        fputs("stack", out);
        put_field(out, names[copied[i].name]);
        fprintf(out, "\t%lld\t%lld\n", (long long)copied[i].live, (long long)copied[i].samples);
        for (int f = 0; f < copied[i].depth; f++) {
            jmethodID id = copied[i].frames[f].method;
            Method uncached, *m = &uncached;
            for (size_t probe = 0; methods != NULL && probe < METHOD_SLOTS; probe++) {
                Method *slot = &methods[(((uintptr_t)id >> 3) + probe) % METHOD_SLOTS];
                if (slot->id == id || slot->id == NULL) {
                    m = slot;
                    break;
                }
            }
            if (m == &uncached || m->id != id) resolve_method(control_env, jni, id, m);
            put_frame(out, m, copied[i].frames[f].location);
            if (m == &uncached) release_method(control_env, m);
        }
    }
    for (size_t i = 0; methods != NULL && i < METHOD_SLOTS; i++) {
        if (methods[i].id != NULL) release_method(control_env, &methods[i]);
    }
    free(methods);
}

static jint report(JNIEnv *jni, char **args, int count, FILE *out, Message *message) {
    if (count < 3) return fail(message, "report needs a GC flag", JVMTI_ERROR_NONE);
    if (control_env == NULL) {
        return fail(message, "allocation sampling is not running: it was never started",
                    JVMTI_ERROR_NONE);
    }
    /* A full GC first, so that only objects still reachable are counted, with sampling paused
     * until they are: objects allocated meanwhile would count whether they live or not. The
     * collection runs without the lock: threads blocked on it would wait for it for nothing. */
    int collect = strcmp(args[2], "1") == 0;
    jvmtiError collected = JVMTI_ERROR_NONE;
    if (collect) {
        (*control_env)->RawMonitorEnter(control_env, lock);
        s.paused = 1;
        (*control_env)->RawMonitorExit(control_env, lock);
        collected = (*control_env)->ForceGarbageCollection(control_env);
    }
    (*control_env)->RawMonitorEnter(control_env, lock);
    s.paused = 0;
    if (collected != JVMTI_ERROR_NONE) {
        (*control_env)->RawMonitorExit(control_env, lock);
        return fail(message, "cannot run a full GC", collected);
    }
    if (!s.active) {
        snprintf(message->text, sizeof message->text, "allocation sampling is not running: %.400s",
                 s.stopped_because[0] ? s.stopped_because : "it was never started");
        (*control_env)->RawMonitorExit(control_env, lock);
        return JNI_ERR;
    }
    int stacks = s.stack_count;
    Copied *copied = calloc(stacks > 0 ? (size_t)stacks : 1, sizeof *copied);
    jlong *tags = calloc(stacks > 0 ? (size_t)stacks : 1, sizeof *tags);
    char *names[MAX_CLASS_NAMES] = {0};
    jint found = 0;
    jlong *found_tags = NULL;
    jvmtiError error = JVMTI_ERROR_OUT_OF_MEMORY;
    /* HotSpot makes a local reference to each object found, even when the objects are not
     * asked for: a frame releases them. (Its capacity is a hint that HotSpot exceeds as needed,
     * and more than -XX:MaxJNILocalCapacity, 65536 by default, is refused.) */
    if (copied != NULL && tags != NULL && (*jni)->PushLocalFrame(jni, 4096) == JNI_OK) {
        for (int i = 0; i < stacks; i++) tags[i] = i + 1;
        error = stacks == 0 ? JVMTI_ERROR_NONE
            : (*s.env)->GetObjectsWithTags(s.env, stacks, tags, &found, NULL, &found_tags);
        (*jni)->PopLocalFrame(jni, NULL);
    } else {
        (*jni)->ExceptionClear(jni); /* PushLocalFrame's OutOfMemoryError */
    }
    if (error == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < found; i++) {
            if (found_tags[i] >= 1 && found_tags[i] <= stacks) copied[found_tags[i] - 1].live++;
        }
        for (int i = 0; i < stacks; i++) {
            copied[i].name = s.stacks[i].name;
            copied[i].depth = s.stacks[i].depth;
            copied[i].samples = s.stacks[i].samples;
            memcpy(copied[i].frames, s.stacks[i].frames,
                   sizeof *copied[i].frames * s.stacks[i].depth);
        }
        /* Resynchronised with the truth (GetObjectsWithTags saw the dead ones go first). */
        __atomic_store_n(&tagged_live, (jlong)found, __ATOMIC_RELAXED);
        fprintf(out, "interval\t%d\nevents\t%lld\nsamples\t%lld\n", (int)s.interval,
                (long long)s.events, (long long)s.samples);
        fprintf(out, "dropped-table-full\t%lld\ndropped-tag-budget\t%lld\ndropped-errors\t%lld\n",
                (long long)s.dropped_table_full, (long long)s.dropped_tag_budget,
                (long long)s.dropped_errors);
        fprintf(out, "skipped\t%lld\ntagged\t%lld\nclass-refs-full\t%d\n", (long long)s.skipped,
                (long long)found, s.class_refs_full);
        for (int i = 0; i < s.name_count; i++) {
            fputs("class", out);
            put_field(out, s.names[i]);
            fprintf(out, "\t%d\n", s.loaded[i]);
            names[i] = strdup(s.names[i]);
        }
    }
    deallocate(s.env, found_tags);
    (*control_env)->RawMonitorExit(control_env, lock);
    free(tags);
    if (error == JVMTI_ERROR_NONE) {
        const char *properties[] = {"sun.java.command", "java.class.path"};
        for (size_t i = 0; i < sizeof properties / sizeof properties[0]; i++) {
            char *value = NULL;
            if ((*control_env)->GetSystemProperty(control_env, properties[i], &value) ==
                JVMTI_ERROR_NONE) {
                fputs("property", out);
                put_field(out, properties[i]);
                put_field(out, value);
                fputc('\n', out);
                (*control_env)->Deallocate(control_env, (unsigned char *)value);
            }
        }
        put_stacks(jni, out, names, copied, stacks);
        fputs("end\n", out);
    }
    free(copied);
    for (int i = 0; i < MAX_CLASS_NAMES; i++) free(names[i]);
    return error == JVMTI_ERROR_NONE ? JNI_OK : fail(message, "cannot count the tagged objects", error);
}

/* Changes the running sampling's interval: what was sampled stays, and each thread's next
 * sample comes at the new interval once its current one is taken (HotSpot picks a thread's
 * next sampling point at each sample). The JVM-wide interval, as start's: every agent sees it. */
static jint set_interval(char **args, int count, Message *message) {
    if (count != 3) return fail(message, "interval needs a number of bytes", JVMTI_ERROR_NONE);
    char *end = NULL;
    errno = 0;
    long interval = strtol(args[2], &end, 10);
    if (*args[2] == '\0' || *end != '\0' || errno != 0 || interval < 0 || interval > INT32_MAX) {
        return fail(message, "the interval is not a number of bytes", JVMTI_ERROR_NONE);
    }
    if (control_env == NULL) {
        return fail(message, "allocation sampling is not running: it was never started",
                    JVMTI_ERROR_NONE);
    }
    (*control_env)->RawMonitorEnter(control_env, lock);
    jint result = JNI_OK;
    if (!s.active) {
        snprintf(message->text, sizeof message->text, "allocation sampling is not running: %.400s",
                 s.stopped_because[0] ? s.stopped_because : "it was never started");
        result = JNI_ERR;
    } else {
        jvmtiError error = (*s.env)->SetHeapSamplingInterval(s.env, (jint)interval);
        if (error == JVMTI_ERROR_NONE) {
            s.interval = (jint)interval;
        } else {
            result = fail(message, "cannot set the sampling interval", error);
        }
    }
    (*control_env)->RawMonitorExit(control_env, lock);
    return result;
}

/* The reply goes to a temporary name first and is renamed when complete, so heapgrowth never
 * reads half of one. */
JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    char *copy = strdup(options == NULL ? "" : options);
    if (copy == NULL) return JNI_ERR;
    char *args[3 + MAX_CLASS_NAMES + 1];
    int count = 0;
    for (char *field = strtok(copy, ","); field != NULL && count < (int)(sizeof args / sizeof *args);
         field = strtok(NULL, ",")) {
        args[count++] = field;
    }
    char partial[4200];
    /* Without a reply file there is nobody to tell why. */
    if (count < 2 || args[1][0] != '/' ||
        snprintf(partial, sizeof partial, "%s.partial", args[1]) >= (int)sizeof partial) {
        free(copy);
        return JNI_ERR;
    }
    FILE *out = fopen(partial, "w");
    if (out == NULL) {
        free(copy);
        return JNI_ERR;
    }
    fputs("ok\n", out);
    Message message = {{0}};
    JNIEnv *jni = NULL;
    jint result;
    if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK || jni == NULL) {
        result = fail(&message, "no JNI environment on the attach thread", JVMTI_ERROR_NONE);
    } else if (strcmp(args[0], "start") == 0) {
        result = start(vm, jni, args, count, args[1], &message);
    } else if (strcmp(args[0], "report") == 0) {
        result = report(jni, args, count, out, &message);
    } else if (strcmp(args[0], "interval") == 0) {
        result = set_interval(args, count, &message);
    } else if (strcmp(args[0], "stop") == 0) {
        if (control_env != NULL) {
            (*control_env)->RawMonitorEnter(control_env, lock);
            stop_locked(jni, "heapgrowth stopped it");
            (*control_env)->RawMonitorExit(control_env, lock);
        }
        result = JNI_OK;
    } else {
        result = fail(&message, "unknown command", JVMTI_ERROR_NONE);
    }
    if (result != JNI_OK) {
        /* Whatever a failed report wrote gives way to the reason. */
        fflush(out);
        if (ftruncate(fileno(out), 0) != 0) result = JNI_ERR;
        rewind(out);
        fputs("error", out);
        put_field(out, message.text);
        fputc('\n', out);
    }
    int failed = ferror(out);
    if (fclose(out) != 0 || failed || rename(partial, args[1]) != 0) {
        remove(partial);
        result = JNI_ERR;
    }
    free(copy);
    return result;
}
