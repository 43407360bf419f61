//! The JNI side of attribution: following a growing node's path in the running scenario
//! (`dev.heapgrowth.attribution.LiveAttribution`), recording proxies, and the objects and field
//! a JVMTI field watch is set on.

use std::sync::Arc;

use jni::objects::{GlobalRef, JClass, JObject, JObjectArray, JString, JValue};
use jni::JNIEnv;

use super::glue::{as_class, string, string_array};
use super::{Jvm, JvmError, Runtime, Scenario};
use crate::jvmti::{AllocationSampling, FieldWatch, WatchRecord, WatchedField};

/// The recorder the Java side chose for a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recorder {
    /// A recording proxy in the node's field (an interface-typed, non-final field holding a
    /// Collection or Map).
    Proxy,
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
    /// Only the allocation stacks of the node's new objects are left (JVMTI sampled
    /// allocation events).
    Allocations {
        /// Why no other recorder fits.
        reason: String,
    },
    /// Nothing applies.
    None {
        /// Why, for the user.
        reason: String,
    },
}

/// A growing node found live in the scenario: its owners and objects, held by the Java side.
#[derive(Debug)]
pub struct LiveNode {
    session: GlobalRef,
    runtime: Arc<Runtime>,
}

impl Scenario {
    /// Follows `steps` (kind, owner, name, target, from the root group down) through the
    /// scenario's live objects.
    pub fn follow_path(&self, steps: &[[&str; 4]]) -> Result<LiveNode, JvmError> {
        let Some(host) = &self.host else {
            return Err(JvmError::Jni("scenario already closed".into()));
        };
        let session = self.runtime.with_env(|env, glue| {
            let flat: Vec<&str> = steps.iter().flatten().copied().collect();
            let array = env.new_object_array(flat.len() as i32, "java/lang/String", JObject::null())?;
            for (i, part) in flat.iter().enumerate() {
                let part = env.new_string(part)?;
                env.set_object_array_element(&array, i as i32, &part)?;
                env.delete_local_ref(part)?;
            }
            let result = env.call_static_method(
                as_class(&glue.live_attribution),
                "open",
                "(Ldev/heapgrowth/glue/ScenarioHost;[Ljava/lang/String;)Ldev/heapgrowth/attribution/LiveAttribution;",
                &[JValue::Object(host.as_obj()), JValue::Object(&array)],
            );
            let session = glue.unexpected(env, "following the path for attribution", result)?.l()?;
            Ok(env.new_global_ref(session)?)
        })?;
        Ok(LiveNode {
            session,
            runtime: Arc::clone(&self.runtime),
        })
    }
}

impl LiveNode {
    fn call<T>(
        &self,
        operation: &'static str,
        method: &str,
        signature: &str,
        then: impl FnOnce(&mut JNIEnv, jni::objects::JValueOwned) -> Result<T, JvmError>,
    ) -> Result<T, JvmError> {
        self.runtime.with_env(|env, glue| {
            let result = env.call_method(&self.session, method, signature, &[]);
            let value = glue.unexpected(env, operation, result)?;
            then(env, value)
        })
    }

    fn strings(&self, operation: &'static str, method: &str) -> Result<Vec<String>, JvmError> {
        self.call(operation, method, "()[Ljava/lang/String;", |env, value| {
            let array = JObjectArray::from(value.l()?);
            Ok(string_array(env, &array)?
                .into_iter()
                .map(Option::unwrap_or_default)
                .collect())
        })
    }

    /// The recorder that fits the node.
    pub fn recorder(&self) -> Result<Recorder, JvmError> {
        let plan = self.strings("choosing a recorder", "plan")?;
        let get = |i: usize| plan.get(i).cloned().unwrap_or_default();
        Ok(match get(0).as_str() {
            "proxy" => Recorder::Proxy,
            "field" => Recorder::FieldWrites { label: get(5) },
            "container" => Recorder::ContainerWrites { label: get(5) },
            "allocations" => Recorder::Allocations { reason: get(1) },
            _ => Recorder::None { reason: get(1) },
        })
    }

    /// Switches to the container watch after the proxy failed (the scenario casts the field
    /// to its concrete class): [`Recorder::ContainerWrites`] or [`Recorder::None`].
    pub fn without_proxy(&self) -> Result<Recorder, JvmError> {
        self.strings("choosing a recorder without proxy", "withoutProxy")?;
        self.recorder()
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
    pub fn proxy_calls(&self) -> Result<Vec<(String, Vec<String>)>, JvmError> {
        let stacks = self.strings("reading recorded calls", "proxyStacks")?;
        Ok(stacks
            .into_iter()
            .map(|stack| {
                let mut lines = stack.lines().map(str::to_owned);
                let method = lines.next().unwrap_or_default();
                (method, lines.collect())
            })
            .collect())
    }

    /// Starts the JVMTI field watch the recorder calls for ([`Recorder::FieldWrites`] or
    /// [`Recorder::ContainerWrites`]), filtered to the node's owners or containers.
    pub fn watch<'j>(&self, jvm: &'j Jvm) -> Result<ActiveWatch<'j>, JvmError> {
        let plan = self.strings("choosing a recorder", "plan")?;
        if plan.len() < 5 || !(plan[0] == "field" || plan[0] == "container") {
            return Err(JvmError::Jni(format!(
                "no field watch for this node: {plan:?}"
            )));
        }
        let (name, descriptor, is_static) = (&plan[2], &plan[3], plan[4] == "1");
        let watch = self.runtime.with_env(|env, glue| {
            let result = env.call_method(&self.session, "watchClass", "()Ljava/lang/Class;", &[]);
            let class = JClass::from(
                glue.unexpected(env, "finding the watched class", result)?
                    .l()?,
            );
            let result =
                env.call_method(&self.session, "watchObjects", "()[Ljava/lang/Object;", &[]);
            let objects = JObjectArray::from(
                glue.unexpected(env, "finding the watched objects", result)?
                    .l()?,
            );
            let field = if is_static {
                let id = env.get_static_field_id(&class, name, descriptor);
                WatchedField::Static(glue.unexpected(env, "finding the watched field", id)?)
            } else {
                let id = env.get_field_id(&class, name, descriptor);
                WatchedField::Instance(glue.unexpected(env, "finding the watched field", id)?)
            };
            let length = env.get_array_length(&objects)?;
            let mut owners = Vec::with_capacity(length as usize);
            for i in 0..length {
                owners.push(env.get_object_array_element(&objects, i)?);
            }
            Ok(jvm
                .jvmti()
                .watch_field_writes(env, &class, field, &owners)?)
        })?;
        Ok(ActiveWatch {
            watch,
            runtime: Arc::clone(&self.runtime),
        })
    }
}

impl LiveNode {
    /// Starts sampling every allocation of the classes named `class_names` (the node's
    /// children's classes, as reports name them).
    pub fn sample_allocations<'j>(
        &self,
        jvm: &'j Jvm,
        class_names: &[&str],
    ) -> Result<ActiveSampling<'j>, JvmError> {
        let sampling = self.runtime.with_env(|env, glue| {
            let names = string_array_of(env, class_names)?;
            let result = env.call_method(
                &self.session,
                "classesNamed",
                "([Ljava/lang/String;)[Ljava/lang/Class;",
                &[JValue::Object(&names)],
            );
            let classes = JObjectArray::from(
                glue.unexpected(env, "loading the sampled classes", result)?
                    .l()?,
            );
            let length = env.get_array_length(&classes)?;
            let mut list = Vec::with_capacity(length as usize);
            for i in 0..length {
                list.push(JClass::from(env.get_object_array_element(&classes, i)?));
            }
            Ok(jvm.jvmti().sample_allocations(env, &list)?)
        })?;
        Ok(ActiveSampling {
            sampling,
            runtime: Arc::clone(&self.runtime),
        })
    }
}

/// Allocation sampling in place; dropping it switches it off.
#[derive(Debug)]
pub struct ActiveSampling<'j> {
    sampling: AllocationSampling<'j>,
    runtime: Arc<Runtime>,
}

impl ActiveSampling<'_> {
    /// Switches sampling off and returns the allocation stacks of the objects now under the
    /// node through `child_steps` (kind, owner, name, target each).
    pub fn stop(self, live: &LiveNode, child_steps: &[[&str; 4]]) -> Result<WatchRecord, JvmError> {
        let ActiveSampling { sampling, runtime } = self;
        runtime.with_env(|env, glue| {
            let flat: Vec<&str> = child_steps.iter().flatten().copied().collect();
            let steps = string_array_of(env, &flat)?;
            let result = env.call_method(
                &live.session,
                "childObjects",
                "([Ljava/lang/String;)[Ljava/lang/Object;",
                &[JValue::Object(&steps)],
            );
            let objects = match glue.unexpected(env, "finding the node's objects", result) {
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
            Ok(sampling.stop(env, &retained)?)
        })
    }
}

/// A Java `String[]` of `parts`.
fn string_array_of<'local>(
    env: &mut JNIEnv<'local>,
    parts: &[&str],
) -> Result<JObjectArray<'local>, JvmError> {
    let array = env.new_object_array(parts.len() as i32, "java/lang/String", JObject::null())?;
    for (i, part) in parts.iter().enumerate() {
        let part = env.new_string(part)?;
        env.set_object_array_element(&array, i as i32, &part)?;
        env.delete_local_ref(part)?;
    }
    Ok(array)
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
    watch: FieldWatch<'j>,
    runtime: Arc<Runtime>,
}

impl ActiveWatch<'_> {
    /// Switches the watch off and returns the recorded stacks.
    pub fn stop(self) -> Result<WatchRecord, JvmError> {
        let ActiveWatch { watch, runtime } = self;
        runtime.with_env(|env, _| Ok(watch.stop(env)?))
    }
}
