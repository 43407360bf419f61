//! Live paths, the JNI side of attribution (the concept lives in `src/attribution/`): following a
//! growing node's path in the running scenario (`dev.heapgrowth.attribution.LiveAttribution`),
//! recording proxies, and the objects and field a JVMTI field watch is set on.

use std::sync::Arc;

use jni::objects::{GlobalRef, JClass, JObject, JObjectArray, JString, JValue};
use jni::JNIEnv;

use super::boundary::{as_class, new_string_array, string, strings_or_empty};
use super::{JavaAccess, JvmError, Scenario};
use crate::jvmti::{
    AgentCapabilities, AllocationSampling, ClassDefinitions, ClassRecord, FieldWatch, Frame,
    JvmtiEnv, ReadRecord, ReadWatch, SampleRecord, StartWatch, WatchRecord, WatchedField,
};

/// What live attribution needs from a front end (the command line's [`Scenario`] in a JVM
/// heapgrowth started, or the JUnit extension's test method in the test JVM): where the
/// growing path starts, and a way to run more loops.
pub trait LiveScenario {
    /// The JVM's attribution class and the objects a path starts from.
    fn path_start(&mut self) -> Result<PathStart, JvmError>;
    /// Runs `count` more loops of the scenario (an exception it throws is an error).
    fn run_loops(&mut self, count: u32) -> Result<(), JvmError>;
    /// Waits, up to a bound, for the work the loops handed to other threads.
    fn settle(&mut self) -> Result<(), JvmError>;
    /// Runs a full collection and waits for the cleanup it starts.
    fn collect_garbage(&mut self) -> Result<(), JvmError>;
}

/// heapgrowth's JVMTI agent in the JVM, as attribution uses it.
#[derive(Clone, Copy, Debug)]
pub struct LiveAgent<'a> {
    /// The agent's environment.
    pub jvmti: &'a JvmtiEnv,
    /// What it was given.
    pub capabilities: AgentCapabilities,
}

/// Where a growing node's path starts in the running JVM: the class loader that static-field
/// roots are loaded through, the thread of thread roots, and (if any) the object whose
/// instance fields a path under a stack local starts at (the JUnit test instance).
#[derive(Debug)]
pub struct PathStart {
    /// The JVM and its attribution class.
    pub java: Arc<JavaAccess>,
    /// The scenario's class loader.
    pub loader: GlobalRef,
    /// The thread the loops run on.
    pub thread: GlobalRef,
    /// The object a `LOCAL` root step stands for, if the front end knows one.
    pub instance: Option<GlobalRef>,
    /// The scenario's (or test's) class: code from where it was loaded is the user's.
    pub scenario_class: Option<GlobalRef>,
}

impl PathStart {
    /// Where the scenario's class was loaded from (see [`crate::jvmti::Frame::code_source`]).
    pub fn scenario_code_source(&self) -> Result<Option<String>, JvmError> {
        let Some(class) = &self.scenario_class else {
            return Ok(None);
        };
        self.java
            .with_env(|env| Ok(self.java.code_source(env, class.as_obj())))
    }

    /// Follows `steps` (kind, owner, name, target, from the root group down) through the
    /// scenario's live objects. A `LOCAL` step (a local variable of a thread's frame) needs
    /// `agent`, which finds what the frames hold.
    pub fn follow_path(
        &self,
        steps: &[[&str; 4]],
        agent: Option<LiveAgent>,
    ) -> Result<LiveNode, JvmError> {
        let session = self.java.with_env(|env| {
            let flat: Vec<&str> = steps.iter().flatten().copied().collect();
            let array = new_string_array(env, flat.as_slice())?;
            let none = JObject::null();
            let instance = self.instance.as_ref().map_or(&none, |i| i.as_obj());
            let locals = match (steps, agent) {
                ([root, local, ..], Some(agent))
                    if local[0] == "LOCAL" && agent.capabilities.tag_objects =>
                {
                    self.stack_locals(env, agent.jvmti, root[3], local[1], local[2])?
                }
                _ => JObjectArray::from(JObject::null()),
            };
            let loaded = match agent {
                Some(agent) if steps.iter().any(|step| step[0] == "CLASS") => {
                    loaded_classes(env, agent.jvmti)?
                }
                _ => JObjectArray::from(JObject::null()),
            };
            let result = env.call_static_method(
                as_class(&self.java.live_attribution),
                "open",
                "(Ljava/lang/ClassLoader;Ljava/lang/Thread;Ljava/lang/Object;[Ljava/lang/String;[Ljava/lang/Object;[Ljava/lang/Class;)Ldev/heapgrowth/attribution/LiveAttribution;",
                &[
                    JValue::Object(self.loader.as_obj()),
                    JValue::Object(self.thread.as_obj()),
                    JValue::Object(instance),
                    JValue::Object(&array),
                    JValue::Object(&locals),
                    JValue::Object(&loaded),
                ],
            );
            let session = self.java.unexpected(env, "following the path for attribution", result)?.l()?;
            Ok(env.new_global_ref(session)?)
        })?;
        Ok(LiveNode {
            session,
            java: Arc::clone(&self.java),
        })
    }

    /// What the frames of `class.method` hold in their local variables, on the threads of the
    /// root group named `pattern` (the thread the loops run on when it is empty).
    fn stack_locals<'local>(
        &self,
        env: &mut JNIEnv<'local>,
        jvmti: &JvmtiEnv,
        pattern: &str,
        class: &str,
        method: &str,
    ) -> Result<JObjectArray<'local>, JvmError> {
        let pattern = env.new_string(pattern)?;
        let result = env.call_static_method(
            as_class(&self.java.live_attribution),
            "threadsOf",
            "(Ljava/lang/String;Ljava/lang/Thread;)[Ljava/lang/Thread;",
            &[
                JValue::Object(&pattern),
                JValue::Object(self.thread.as_obj()),
            ],
        );
        let threads = JObjectArray::from(
            self.java
                .unexpected(env, "finding the threads of a stack local", result)?
                .l()?,
        );
        let length = env.get_array_length(&threads)?;
        let mut list = Vec::with_capacity(length as usize);
        for i in 0..length {
            list.push(env.get_object_array_element(&threads, i)?);
        }
        let locals = jvmti.stack_locals(env, &list, class, method)?;
        let array =
            env.new_object_array(locals.len() as i32, "java/lang/Object", JObject::null())?;
        for (i, local) in locals.into_iter().enumerate() {
            env.set_object_array_element(&array, i as i32, &local)?;
            env.delete_local_ref(local)?;
        }
        Ok(array)
    }
}

/// Every class loaded now, as a `Class[]` for a path's `CLASS` steps (JVMTI lists them: no class
/// is looked up by name, so nothing is loaded or defined, and hidden classes are there).
fn loaded_classes<'local>(
    env: &mut JNIEnv<'local>,
    jvmti: &JvmtiEnv,
) -> Result<JObjectArray<'local>, JvmError> {
    let classes = jvmti.loaded_classes(env)?;
    let array = env.new_object_array(classes.len() as i32, "java/lang/Class", JObject::null())?;
    for (i, class) in classes.into_iter().enumerate() {
        env.set_object_array_element(&array, i as i32, &class)?;
        env.delete_local_ref(class)?;
    }
    Ok(array)
}

/// The JVMTI recorder the Java side chose for a node (a recording proxy, the last resort, is
/// asked for separately: [`LiveNode::proxy_fit`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recorder {
    /// A field-modification watch on the node's own field (`Owner.field`).
    FieldWrites {
        /// `SimpleOwner.field`, for the report.
        label: String,
    },
    /// A field-modification watch on the internal size field of the node's containers.
    ContainerWrites {
        /// The container class's simple name.
        label: String,
    },
    /// No watch fits: allocation sampling (JVMTI sampled allocation events) is next.
    Allocations {
        /// Why no watch fits.
        reason: String,
    },
    /// The path cannot be followed.
    None {
        /// Why, for the user.
        reason: String,
    },
}

/// A growing node found live in the scenario: its owners and objects, held by the Java side.
#[derive(Debug)]
pub struct LiveNode {
    session: GlobalRef,
    java: Arc<JavaAccess>,
}

impl LiveNode {
    fn call<T>(
        &self,
        operation: &'static str,
        method: &str,
        signature: &str,
        then: impl FnOnce(&mut JNIEnv, jni::objects::JValueOwned) -> Result<T, JvmError>,
    ) -> Result<T, JvmError> {
        self.java.with_env(|env| {
            let result = env.call_method(&self.session, method, signature, &[]);
            let value = self.java.unexpected(env, operation, result)?;
            then(env, value)
        })
    }

    fn strings(&self, operation: &'static str, method: &str) -> Result<Vec<String>, JvmError> {
        self.call(operation, method, "()[Ljava/lang/String;", |env, value| {
            let array = JObjectArray::from(value.l()?);
            Ok(strings_or_empty(env, &array)?)
        })
    }

    /// The recorder that fits the node.
    pub fn recorder(&self) -> Result<Recorder, JvmError> {
        let plan = self.strings("choosing a recorder", "plan")?;
        let get = |i: usize| plan.get(i).cloned().unwrap_or_default();
        Ok(match get(0).as_str() {
            "field" => Recorder::FieldWrites { label: get(5) },
            "container" => Recorder::ContainerWrites { label: get(5) },
            "allocations" => Recorder::Allocations { reason: get(1) },
            _ => Recorder::None { reason: get(1) },
        })
    }

    /// `None` if a recording proxy can stand in the node's field, else why not.
    pub fn proxy_fit(&self) -> Result<Option<String>, JvmError> {
        self.call(
            "checking for a proxy",
            "proxyFit",
            "()Ljava/lang/String;",
            |env, value| Ok(string(env, &JString::from(value.l()?))?),
        )
    }

    /// Follows the path again: the node's objects may have been replaced (an array copied on
    /// every add). `Some(reason)` if it cannot be followed any more.
    pub fn refresh(&self) -> Result<Option<String>, JvmError> {
        self.call(
            "following the path again",
            "refresh",
            "()Ljava/lang/String;",
            |env, value| Ok(string(env, &JString::from(value.l()?))?),
        )
    }

    /// After the proxies were removed and a full collection ran: how the scenario could see
    /// them (it kept one, it replaced the field).
    pub fn proxy_leaks(&self) -> Result<Vec<String>, JvmError> {
        self.strings("checking where the proxies went", "proxyLeaks")
    }

    /// Swaps recording proxies into the node's field in every owner: `Err(reason)` if the field
    /// cannot be set (nothing is swapped then).
    pub fn install_proxies(&self) -> Result<Result<(), String>, JvmError> {
        self.call(
            "installing recording proxies",
            "installProxies",
            "()Ljava/lang/String;",
            |env, value| {
                let reason = string(env, &JString::from(value.l()?))?;
                Ok(reason.map_or(Ok(()), Err))
            },
        )
    }

    /// Puts the original objects back into the fields (where our proxy still is).
    pub fn restore(&self) -> Result<(), JvmError> {
        self.call("restoring the watched field", "restore", "()V", |_, _| {
            Ok(())
        })
    }

    /// The calls the proxies recorded: the method name, then the caller's frames.
    pub fn proxy_calls(&self) -> Result<Vec<(String, Vec<Frame>)>, JvmError> {
        let stacks = self.strings("reading recorded calls", "proxyStacks")?;
        Ok(stacks
            .into_iter()
            .map(|stack| {
                let mut lines = stack.lines();
                let method = lines.next().unwrap_or_default().to_owned();
                (method, lines.filter_map(proxy_frame).collect())
            })
            .collect())
    }

    /// The remove-like calls the recording proxies saw: the method, whether it removed anything
    /// (the size changed), and the caller's frames.
    pub fn proxy_removes(&self) -> Result<Vec<(String, bool, Vec<Frame>)>, JvmError> {
        let stacks = self.strings("reading recorded removes", "proxyRemoves")?;
        Ok(stacks
            .into_iter()
            .map(|stack| {
                let mut lines = stack.lines();
                let head = lines.next().unwrap_or_default();
                let (method, removed) = head.split_once('\t').unwrap_or((head, "0"));
                (
                    method.to_owned(),
                    removed == "1",
                    lines.filter_map(proxy_frame).collect(),
                )
            })
            .collect())
    }

    /// Starts the JVMTI field watch the recorder calls for ([`Recorder::FieldWrites`] or
    /// [`Recorder::ContainerWrites`]), filtered to the node's owners or containers.
    pub fn watch<'j>(&self, jvmti: &'j JvmtiEnv) -> Result<ActiveWatch<'j>, JvmError> {
        let plan = self.strings("choosing a recorder", "plan")?;
        if plan.len() < 5 || !(plan[0] == "field" || plan[0] == "container") {
            return Err(JvmError::Jni(format!(
                "no field watch for this node: {plan:?}"
            )));
        }
        let (name, descriptor, is_static) = (&plan[2], &plan[3], plan[4] == "1");
        let watch = self.java.with_env(|env| {
            let result = env.call_method(&self.session, "watchClass", "()Ljava/lang/Class;", &[]);
            let class = JClass::from(
                self.java
                    .unexpected(env, "finding the watched class", result)?
                    .l()?,
            );
            let result =
                env.call_method(&self.session, "watchObjects", "()[Ljava/lang/Object;", &[]);
            let objects = JObjectArray::from(
                self.java
                    .unexpected(env, "finding the watched objects", result)?
                    .l()?,
            );
            let field = if is_static {
                let id = env.get_static_field_id(&class, name, descriptor);
                WatchedField::Static(self.java.unexpected(env, "finding the watched field", id)?)
            } else {
                let id = env.get_field_id(&class, name, descriptor);
                WatchedField::Instance(self.java.unexpected(
                    env,
                    "finding the watched field",
                    id,
                )?)
            };
            let length = env.get_array_length(&objects)?;
            let mut owners = Vec::with_capacity(length as usize);
            for i in 0..length {
                owners.push(env.get_object_array_element(&objects, i)?);
            }
            let watch = jvmti.watch_field_writes(env, &class, field, &owners)?;
            // A container's size field: the remove-like reads of it too, for the remove hint
            // (issue 32). Best effort: without the capability, or if it cannot start, no hint.
            let reads = (plan[0] == "container"
                && jvmti
                    .capabilities()
                    .is_ok_and(|capabilities| capabilities.field_access_events))
            .then(|| jvmti.watch_removing_reads(env, &class, field).ok())
            .flatten();
            Ok((watch, reads))
        })?;
        let (watch, reads) = watch;
        Ok(ActiveWatch {
            watch,
            reads,
            java: Arc::clone(&self.java),
        })
    }
}

/// The remove-like reads of an owner's size field (an `int` named `size` or `count`), for the
/// remove hint (issue 32): a remove that finds nothing reads the size and writes nothing
/// (Netty's `DefaultFutureListeners.remove`, `TaskQueue`'s). Best effort: without the
/// capability, without such a field, or if it cannot start, no hint.
fn owner_size_reads<'j>(
    jvmti: &'j JvmtiEnv,
    env: &mut JNIEnv,
    watched: &[(&JClass, WatchedField)],
    fields: &[(String, bool)],
) -> Option<ReadWatch<'j>> {
    let size = fields
        .iter()
        .position(|(name, is_int)| *is_int && (name == "size" || name == "count"))?;
    let (class, field) = watched.get(size)?;
    jvmti
        .capabilities()
        .is_ok_and(|capabilities| capabilities.field_access_events)
        .then(|| jvmti.watch_removing_reads(env, class, *field).ok())
        .flatten()
}

/// The fields of an owner-field watch (see [`LiveNode::owner_watch`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerFields {
    /// The owners' class, its simple name (`TaskQueue`).
    pub label: String,
    /// Each watched field's name and whether it is an `int`, in the watch's order.
    pub fields: Vec<(String, bool)>,
}

impl LiveNode {
    /// The objects of a `Class[]` or `Object[]` the session's `method` returns, as local
    /// references of `env`'s frame.
    fn objects<'l>(
        &self,
        env: &mut JNIEnv<'l>,
        operation: &'static str,
        method: &str,
        signature: &str,
    ) -> Result<Vec<JObject<'l>>, JvmError> {
        let result = env.call_method(&self.session, method, signature, &[]);
        let array = JObjectArray::from(self.java.unexpected(env, operation, result)?.l()?);
        let length = env.get_array_length(&array)?;
        let mut list = Vec::with_capacity(length as usize);
        for i in 0..length {
            list.push(env.get_object_array_element(&array, i)?);
        }
        Ok(list)
    }

    /// Starts an owner-field watch when the node fits one: its objects are arrays held in an
    /// instance field of objects of one JDK or library class (not the user's: code from
    /// `scenario_source` or a class directory). Every non-final instance field of that class
    /// and its superclasses is watched, filtered to the node's owners. `None` if it does not
    /// fit.
    pub fn owner_watch<'j>(
        &self,
        jvmti: &'j JvmtiEnv,
        scenario_source: Option<&str>,
    ) -> Result<Option<(ActiveWatch<'j>, OwnerFields)>, JvmError> {
        let found = self.java.with_env(|env| {
            let source = match scenario_source {
                Some(source) => JObject::from(env.new_string(source)?),
                None => JObject::null(),
            };
            let result = env.call_method(
                &self.session,
                "ownerPlan",
                "(Ljava/lang/String;)[Ljava/lang/String;",
                &[JValue::Object(&source)],
            );
            let plan = JObjectArray::from(
                self.java
                    .unexpected(env, "choosing the owner's fields", result)?
                    .l()?,
            );
            let plan = strings_or_empty(env, &plan)?;
            if plan.is_empty() {
                return Ok(None);
            }
            let classes = self.objects(
                env,
                "finding the owner's classes",
                "ownerFieldClasses",
                "()[Ljava/lang/Class;",
            )?;
            let owners = self.objects(
                env,
                "finding the owners",
                "ownerObjects",
                "()[Ljava/lang/Object;",
            )?;
            let result = env.call_method(&self.session, "ownerLabel", "()Ljava/lang/String;", &[]);
            let label = self.java.unexpected(env, "naming the owner", result)?.l()?;
            let label = string(env, &JString::from(label))?.unwrap_or_default();
            let mut fields = Vec::new();
            let mut watched = Vec::new();
            for (class, field) in classes.iter().zip(plan.chunks_exact(3)) {
                let class: &JClass = class.into();
                let id = env.get_field_id(class, &field[0], &field[1]);
                let id = self.java.unexpected(env, "finding an owner's field", id)?;
                watched.push((class, WatchedField::Instance(id)));
                fields.push((field[0].clone(), field[2] == "1"));
            }
            let watch = jvmti.watch_fields_writes(env, &watched, &owners)?;
            let reads = owner_size_reads(jvmti, env, &watched, &fields);
            Ok(Some((watch, reads, OwnerFields { label, fields })))
        })?;
        Ok(found.map(|(watch, reads, fields)| {
            (
                ActiveWatch {
                    reads,
                    watch,
                    java: Arc::clone(&self.java),
                },
                fields,
            )
        }))
    }

    /// Starts a value-filtered watch on the fields that link the node's children below its
    /// objects (`fields`: declaring class and field name, from the children's `INSTANCE_FIELD`
    /// steps): the writes of a reference to an object allocation sampling tagged, with its
    /// tag. Allocation sampling must be running. The label names the fields for the report
    /// (`SearchTree$Node.left and .right`); `None` if no field was found.
    pub fn value_watch<'j>(
        &self,
        jvmti: &'j JvmtiEnv,
        fields: &[(&str, &str)],
    ) -> Result<Option<(ActiveWatch<'j>, String)>, JvmError> {
        if fields.is_empty() {
            return Ok(None);
        }
        let found = self.java.with_env(|env| {
            let flat: Vec<&str> = fields.iter().flat_map(|(c, f)| [*c, *f]).collect();
            let names = new_string_array(env, &flat)?;
            let result = env.call_method(
                &self.session,
                "valueFieldPlan",
                "([Ljava/lang/String;)[Ljava/lang/String;",
                &[JValue::Object(&names)],
            );
            let plan = JObjectArray::from(
                self.java
                    .unexpected(env, "choosing the linking fields", result)?
                    .l()?,
            );
            let plan = strings_or_empty(env, &plan)?;
            if plan.is_empty() {
                return Ok(None);
            }
            let classes = self.objects(
                env,
                "finding the linking fields' classes",
                "valueFieldClasses",
                "()[Ljava/lang/Class;",
            )?;
            let mut watched = Vec::new();
            let mut names = Vec::new();
            for (class, field) in classes.iter().zip(plan.chunks_exact(2)) {
                let declaring: &JClass = class.into();
                let id = env.get_field_id(declaring, &field[0], &field[1]);
                let id = self.java.unexpected(env, "finding a linking field", id)?;
                watched.push((declaring, WatchedField::Instance(id)));
                names.push(field[0].clone());
            }
            let watch = jvmti.watch_sampled_values_written(env, &watched)?;
            Ok(Some((watch, names)))
        })?;
        Ok(found.map(|(watch, names)| {
            let owner = fields
                .iter()
                .find(|(_, f)| names.first() == Some(&f.to_string()))
                .map_or("", |(c, _)| *c);
            let simple = owner.rsplit('.').next().unwrap_or(owner);
            let label = format!("{simple}.{}", names.join(" and ."));
            (
                ActiveWatch {
                    reads: None,
                    watch,
                    java: Arc::clone(&self.java),
                },
                label,
            )
        }))
    }

    /// Starts sampling every allocation of the classes named `class_names` (the node's
    /// children's classes, as reports name them), and with `links` of the node's link classes
    /// (the entries its containers allocate on an add, its own arrays when they are replaced
    /// on every add), marked as links in the record.
    pub fn sample_allocations<'j>(
        &self,
        jvmti: &'j JvmtiEnv,
        growing_children: &[&str],
        own_only: bool,
        links: bool,
    ) -> Result<ActiveSampling<'j>, JvmError> {
        let sampling = self.java.with_env(|env| {
            let names = new_string_array(env, growing_children)?;
            let result = env.call_method(
                &self.session,
                "samplingClasses",
                "([Ljava/lang/String;Z)[Ljava/lang/Class;",
                &[JValue::Object(&names), JValue::Bool(own_only.into())],
            );
            let classes = JObjectArray::from(
                self.java
                    .unexpected(env, "loading the sampled classes", result)?
                    .l()?,
            );
            let length = env.get_array_length(&classes)?;
            let mut list = Vec::with_capacity(length as usize);
            for i in 0..length {
                list.push(JClass::from(env.get_object_array_element(&classes, i)?));
            }
            let links = if links {
                self.objects(
                    env,
                    "finding the node's link classes",
                    "linkClasses",
                    "()[Ljava/lang/Class;",
                )?
                .into_iter()
                .map(JClass::from)
                .collect()
            } else {
                Vec::new()
            };
            Ok(jvmti.sample_allocations(env, &list, &links)?)
        })?;
        Ok(ActiveSampling {
            sampling,
            java: Arc::clone(&self.java),
        })
    }
}

/// The field of its thread `Thread.start()` reads first, by JDK: the holder of its status on
/// JDK 19 and later, the status itself on JDK 17. Field name and signature.
const THREAD_START_READS: [(&str, &str); 2] = [
    ("holder", "Ljava/lang/Thread$FieldHolder;"),
    ("threadStatus", "I"),
];

/// `Thread`'s start methods: `start()`, and on JDK 19 and later `start(ThreadContainer)`, which
/// executors call (it does not go through `start()`).
const THREAD_START_METHODS: [&str; 2] = ["()V", "(Ljdk/internal/vm/ThreadContainer;)V"];

impl LiveNode {
    /// Starts a watch on the calls of `Thread.start` (see [`crate::jvmti::StartWatch`]): the
    /// stacks of the calls that start threads, which keep them (a running thread is a GC root).
    /// The label names the field read; `None` if this JDK's `Thread` has neither field.
    pub fn thread_start_watch<'j>(
        &self,
        jvmti: &'j JvmtiEnv,
    ) -> Result<Option<(ActiveStartWatch<'j>, &'static str)>, JvmError> {
        let found = self.java.with_env(|env| {
            let class = env.find_class("java/lang/Thread");
            let class = self
                .java
                .unexpected(env, "finding java.lang.Thread", class)?;
            // A JDK without a field or method throws NoSuchFieldError or NoSuchMethodError.
            let Some((name, id)) = THREAD_START_READS.iter().find_map(|(name, signature)| {
                let id = env.get_field_id(&class, name, signature);
                super::boundary::catch(env, id).ok().map(|id| (*name, id))
            }) else {
                return Ok(None);
            };
            let methods: Vec<_> = THREAD_START_METHODS
                .iter()
                .filter_map(|signature| {
                    let id = env.get_method_id(&class, "start", signature);
                    super::boundary::catch(env, id).ok()
                })
                .collect();
            let watch = jvmti.watch_thread_starts(env, &class, id, &methods)?;
            Ok(Some((watch, name)))
        })?;
        Ok(found.map(|(watch, name)| {
            let label = match name {
                "holder" => "Thread.holder",
                _ => "Thread.threadStatus",
            };
            (
                ActiveStartWatch {
                    watch,
                    java: Arc::clone(&self.java),
                },
                label,
            )
        }))
    }
}

/// A thread-start watch running (see [`LiveNode::thread_start_watch`]).
#[derive(Debug)]
pub struct ActiveStartWatch<'j> {
    watch: StartWatch<'j>,
    java: Arc<JavaAccess>,
}

impl ActiveStartWatch<'_> {
    /// Switches the watch off and returns the recorded stacks (one field: `fields` all 0).
    pub fn stop(self) -> Result<WatchRecord, JvmError> {
        let ActiveStartWatch { watch, java } = self;
        java.with_env(|env| {
            let mut code_source = |env: &mut JNIEnv, class: &JObject| java.code_source(env, class);
            Ok(watch.stop(env, &mut code_source)?)
        })
    }
}

impl LiveNode {
    /// Starts recording the classes the node's class loaders define (the node's objects that
    /// are class loaders); `None` if none of them is one.
    pub fn record_class_definitions<'j>(
        &self,
        jvmti: &'j JvmtiEnv,
    ) -> Result<Option<ActiveClassDefinitions<'j>>, JvmError> {
        let recording = self.java.with_env(|env| {
            let result =
                env.call_method(&self.session, "nodeObjects", "()[Ljava/lang/Object;", &[]);
            let objects = JObjectArray::from(
                self.java
                    .unexpected(env, "finding the node's objects", result)?
                    .l()?,
            );
            let length = env.get_array_length(&objects)?;
            let mut loaders = Vec::new();
            for i in 0..length {
                let object = env.get_object_array_element(&objects, i)?;
                if env.is_instance_of(&object, "java/lang/ClassLoader")? {
                    loaders.push(object);
                }
            }
            if loaders.is_empty() {
                return Ok(None);
            }
            Ok(Some(jvmti.record_class_definitions(env, &loaders)?))
        })?;
        Ok(recording.map(|recording| ActiveClassDefinitions {
            recording,
            java: Arc::clone(&self.java),
        }))
    }
}

impl PathStart {
    /// Starts recording every class defined, whatever its loader: for a node that is the set of
    /// classes held as GC roots itself (`GcRoot(Class)`), which no path below leads to.
    pub fn record_all_class_definitions<'j>(
        &self,
        jvmti: &'j JvmtiEnv,
    ) -> Result<ActiveClassDefinitions<'j>, JvmError> {
        let recording = self
            .java
            .with_env(|env| Ok(jvmti.record_class_definitions(env, &[])?))?;
        Ok(ActiveClassDefinitions {
            recording,
            java: Arc::clone(&self.java),
        })
    }
}

/// A class-definition recording in place; dropping it switches it off.
#[derive(Debug)]
pub struct ActiveClassDefinitions<'j> {
    recording: ClassDefinitions<'j>,
    java: Arc<JavaAccess>,
}

impl ActiveClassDefinitions<'_> {
    /// Switches the recording off: the classes still loaded (run a full collection first) and
    /// the stacks that defined them.
    pub fn stop(self) -> Result<ClassRecord, JvmError> {
        let ActiveClassDefinitions { recording, java } = self;
        java.with_env(
            |env| Ok(recording.stop(env, &mut |env, class| java.code_source(env, class))?),
        )
    }
}

/// Allocation sampling in place; dropping it switches it off.
#[derive(Debug)]
pub struct ActiveSampling<'j> {
    sampling: AllocationSampling<'j>,
    java: Arc<JavaAccess>,
}

impl ActiveSampling<'_> {
    /// Switches sampling off and returns the allocation stacks of the objects sampled while it
    /// ran that are now the node's objects (a root group's threads: `below` false) or below
    /// them (`below` true). `live` must have been refreshed ([`LiveNode::refresh`]).
    pub fn stop(self, live: &LiveNode, below: bool) -> Result<SampleRecord, JvmError> {
        let ActiveSampling { sampling, java } = self;
        java.with_env(|env| {
            let result =
                env.call_method(&live.session, "nodeObjects", "()[Ljava/lang/Object;", &[]);
            let objects = match java.unexpected(env, "finding the node's objects", result) {
                Ok(value) => JObjectArray::from(value.l()?),
                // Sampling is switched off by the drop of `sampling` on this path.
                Err(error) => return Err(error),
            };
            let length = env.get_array_length(&objects)?;
            // Past the local frame's capacity JNI grows it; these are freed with the frame.
            let mut retained = Vec::with_capacity(length as usize);
            for i in 0..length {
                retained.push(env.get_object_array_element(&objects, i)?);
            }
            Ok(sampling.stop(env, &retained, below, &mut |env, class| {
                java.code_source(env, class)
            })?)
        })
    }
}

/// One frame as `RecordingHandler.callerFrames` writes it: class, method, file, line and code
/// source, separated by tabs (empty where unknown, line -1).
fn proxy_frame(line: &str) -> Option<Frame> {
    let mut fields = line.split('\t');
    let mut next = || {
        fields
            .next()
            .filter(|field| !field.is_empty())
            .map(str::to_owned)
    };
    let class = next()?;
    let method = next()?;
    let file = next();
    let line = next()
        .and_then(|line| line.parse().ok())
        .filter(|&line: &i32| line >= 0);
    let code_source = next();
    Some(Frame {
        class,
        method,
        file,
        line,
        code_source,
    })
}

impl Drop for LiveNode {
    /// Never leaves a proxy behind, even when the caller forgot or failed to restore.
    fn drop(&mut self) {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.restore()));
    }
}

/// A JVMTI field watch in place; dropping it switches it off.
#[derive(Debug)]
pub struct ActiveWatch<'j> {
    /// The remove-like reads of a container's size field, when they could be watched. Before
    /// `watch`, so that it is dropped first: its filter is `watch`'s tags.
    reads: Option<ReadWatch<'j>>,
    watch: FieldWatch<'j>,
    java: Arc<JavaAccess>,
}

impl ActiveWatch<'_> {
    /// Switches the watch off and returns the recorded stacks.
    pub fn stop(self) -> Result<WatchRecord, JvmError> {
        Ok(self.stop_with_reads()?.0)
    }

    /// [`ActiveWatch::stop`], with the remove-like reads (`None` where they were not watched).
    pub fn stop_with_reads(self) -> Result<(WatchRecord, Option<ReadRecord>), JvmError> {
        let ActiveWatch { watch, reads, java } = self;
        java.with_env(|env| {
            let mut code_source = |env: &mut JNIEnv, class: &JObject| java.code_source(env, class);
            // The reads first: their filter is the write watch's tags.
            let reads = match reads {
                Some(reads) => Some(reads.stop(env, &mut code_source)?),
                None => None,
            };
            Ok((watch.stop(env, &mut code_source)?, reads))
        })
    }
}

impl LiveScenario for Scenario {
    fn path_start(&mut self) -> Result<PathStart, JvmError> {
        let Some(host) = &self.host else {
            return Err(JvmError::Jni("scenario already closed".into()));
        };
        let (loader, thread, class) = self.runtime.with_env(|env, glue| {
            let mut get = |method: &str, signature: &str| -> Result<GlobalRef, JvmError> {
                let result = env.call_method(host, method, signature, &[]);
                let value = glue
                    .unexpected(
                        env,
                        "finding the scenario's loader, thread and class",
                        result,
                    )?
                    .l()?;
                Ok(env.new_global_ref(value)?)
            };
            Ok((
                get("classLoader", "()Ljava/lang/ClassLoader;")?,
                get("scenarioThread", "()Ljava/lang/Thread;")?,
                get("scenarioClass", "()Ljava/lang/Class;")?,
            ))
        })?;
        Ok(PathStart {
            java: Arc::clone(&self.runtime.glue.access),
            loader,
            thread,
            instance: None,
            scenario_class: Some(class),
        })
    }

    fn run_loops(&mut self, count: u32) -> Result<(), JvmError> {
        Scenario::run_loops(self, count)
    }

    fn settle(&mut self) -> Result<(), JvmError> {
        Scenario::settle(self).map(|_settled| ())
    }

    fn collect_garbage(&mut self) -> Result<(), JvmError> {
        Scenario::collect_garbage(self)
    }
}
