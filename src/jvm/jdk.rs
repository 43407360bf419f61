//! Finding the JDK whose `libjvm.so` heapgrowth loads.
//!
//! Order: `--java-home`, then `JAVA_HOME`, then the JDK that `java` on PATH belongs to. A
//! location that is given explicitly but unusable is an error rather than a reason to try the
//! next one: silently running a different Java than the one asked for would be worse.

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::JvmError;

/// The oldest Java heapgrowth supports (the glue is compiled with `--release 17`).
pub const MIN_JAVA_FEATURE_VERSION: u32 = 17;

/// Where `libjvm.so` sits in a JDK (or JRE) of Java 9 and later.
const LIBJVM: &str = "lib/server/libjvm.so";

/// A JDK found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jdk {
    /// The JDK directory (`JAVA_HOME`).
    pub home: PathBuf,
    /// Its `lib/server/libjvm.so`.
    pub libjvm: PathBuf,
    /// How it was found.
    pub found_by: JdkSource,
}

/// How the JDK was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JdkSource {
    /// `--java-home` (`JvmOptions::java_home`).
    Option,
    /// The `JAVA_HOME` environment variable.
    JavaHomeEnv,
    /// `java` on PATH, at this path (before resolving symlinks).
    PathJava(PathBuf),
}

/// Finds the JDK: `java_home` if given, else `$JAVA_HOME`, else `java` on `$PATH`.
pub fn find_jdk(java_home: Option<&Path>) -> Result<Jdk, JvmError> {
    locate(
        java_home,
        std::env::var_os("JAVA_HOME"),
        std::env::var_os("PATH"),
    )
}

/// [`find_jdk`] with the environment passed in, so tests can use fake directories.
pub(crate) fn locate(
    option: Option<&Path>,
    java_home_env: Option<OsString>,
    path_env: Option<OsString>,
) -> Result<Jdk, JvmError> {
    if let Some(home) = option {
        return check_home(home, JdkSource::Option);
    }
    if let Some(home) = java_home_env.as_ref().filter(|h| !h.is_empty()) {
        return check_home(Path::new(home), JdkSource::JavaHomeEnv);
    }
    let path_dirs: Vec<PathBuf> = path_env
        .as_ref()
        .map(|p| std::env::split_paths(p).collect())
        .unwrap_or_default();
    for dir in &path_dirs {
        let java = dir.join("java");
        if !is_executable_file(&java) {
            continue;
        }
        // `/usr/bin/java` → `/etc/alternatives/java` → `/usr/lib/jvm/<jdk>/bin/java`.
        let real = fs::canonicalize(&java).map_err(|e| JvmError::JdkUnusable {
            path: java.clone(),
            reason: format!("cannot resolve the `java` found on PATH: {e}"),
        })?;
        let home = real
            .parent()
            .and_then(Path::parent)
            .ok_or_else(|| JvmError::JdkUnusable {
                path: real.clone(),
                reason: "the `java` found on PATH is not inside a JDK's bin directory".into(),
            })?;
        return check_home(home, JdkSource::PathJava(java));
    }
    let path_list = if path_dirs.is_empty() {
        "PATH is empty".to_string()
    } else {
        format!(
            "no `java` in {}",
            path_dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(":")
        )
    };
    Err(JvmError::NoJdk {
        searched: format!("--java-home not given, JAVA_HOME not set, {path_list}"),
    })
}

fn check_home(home: &Path, found_by: JdkSource) -> Result<Jdk, JvmError> {
    let origin = match &found_by {
        JdkSource::Option => "--java-home".to_string(),
        JdkSource::JavaHomeEnv => "JAVA_HOME".to_string(),
        JdkSource::PathJava(java) => format!("`java` on PATH ({})", java.display()),
    };
    let unusable = |reason: String| JvmError::JdkUnusable {
        path: home.to_path_buf(),
        reason,
    };
    if !home.is_dir() {
        return Err(unusable(format!("not a directory (from {origin})")));
    }
    let libjvm = home.join(LIBJVM);
    if !libjvm.is_file() {
        return Err(unusable(format!("no {LIBJVM} (from {origin})")));
    }
    if let Some(version) = release_version(home) {
        match feature_version(&version) {
            Some(feature) if feature < MIN_JAVA_FEATURE_VERSION => {
                return Err(unusable(format!(
                    "it is Java {version}; heapgrowth needs Java {MIN_JAVA_FEATURE_VERSION} or newer (from {origin})"
                )))
            }
            _ => {}
        }
    }
    Ok(Jdk {
        home: home.to_path_buf(),
        libjvm,
        found_by,
    })
}

/// `JAVA_VERSION` from the JDK's `release` file, for example `17.0.15`.
fn release_version(home: &Path) -> Option<String> {
    let release = fs::read_to_string(home.join("release")).ok()?;
    release.lines().find_map(|line| {
        let value = line.strip_prefix("JAVA_VERSION=")?;
        Some(value.trim().trim_matches('"').to_string())
    })
}

/// The feature version: `17` of `17.0.15`, `25` of `25`, `8` of `1.8.0_392`.
fn feature_version(version: &str) -> Option<u32> {
    let mut parts = version.split(['.', '_', '-', '+']);
    let first: u32 = parts.next()?.parse().ok()?;
    if first == 1 {
        parts.next()?.parse().ok()
    } else {
        Some(first)
    }
}

fn is_executable_file(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tempdir::PrivateTempDir;
    use std::os::unix::fs::symlink;

    /// A fake JDK: `bin/java` (executable) and, if `with_libjvm`, `lib/server/libjvm.so`.
    fn fake_jdk(root: &Path, name: &str, with_libjvm: bool, version: Option<&str>) -> PathBuf {
        let home = root.join(name);
        fs::create_dir_all(home.join("bin")).unwrap();
        fs::write(home.join("bin/java"), "#!/bin/sh\n").unwrap();
        fs::set_permissions(home.join("bin/java"), fs::Permissions::from_mode(0o755)).unwrap();
        if with_libjvm {
            fs::create_dir_all(home.join("lib/server")).unwrap();
            fs::write(home.join(LIBJVM), "").unwrap();
        }
        if let Some(version) = version {
            fs::write(
                home.join("release"),
                format!("IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"{version}\"\n"),
            )
            .unwrap();
        }
        home
    }

    #[test]
    fn option_wins_over_java_home_and_path() {
        let tmp = PrivateTempDir::new("test").unwrap();
        let a = fake_jdk(tmp.path(), "a", true, Some("17.0.15"));
        let b = fake_jdk(tmp.path(), "b", true, None);
        let c = fake_jdk(tmp.path(), "c", true, None);
        let jdk = locate(Some(&a), Some(b.clone().into()), Some(c.join("bin").into())).unwrap();
        assert_eq!(jdk.home, a);
        assert_eq!(jdk.libjvm, a.join("lib/server/libjvm.so"));
        assert_eq!(jdk.found_by, JdkSource::Option);
    }

    #[test]
    fn java_home_wins_over_path() {
        let tmp = PrivateTempDir::new("test").unwrap();
        let b = fake_jdk(tmp.path(), "b", true, None);
        let c = fake_jdk(tmp.path(), "c", true, None);
        let jdk = locate(None, Some(b.clone().into()), Some(c.join("bin").into())).unwrap();
        assert_eq!((jdk.home, jdk.found_by), (b, JdkSource::JavaHomeEnv));
    }

    #[test]
    fn empty_java_home_counts_as_unset() {
        let tmp = PrivateTempDir::new("test").unwrap();
        let c = fake_jdk(tmp.path(), "c", true, None);
        let jdk = locate(None, Some("".into()), Some(c.join("bin").into())).unwrap();
        assert_eq!(jdk.home, c);
    }

    #[test]
    fn java_on_path_is_resolved_through_symlinks() {
        // Like Debian: /usr/bin/java -> /etc/alternatives/java -> /usr/lib/jvm/<jdk>/bin/java.
        let tmp = PrivateTempDir::new("test").unwrap();
        let jdk_home = fake_jdk(tmp.path(), "usr/lib/jvm/jdk-17", true, Some("17.0.15"));
        fs::create_dir_all(tmp.path().join("etc/alternatives")).unwrap();
        fs::create_dir_all(tmp.path().join("usr/bin")).unwrap();
        symlink(
            jdk_home.join("bin/java"),
            tmp.path().join("etc/alternatives/java"),
        )
        .unwrap();
        symlink(
            tmp.path().join("etc/alternatives/java"),
            tmp.path().join("usr/bin/java"),
        )
        .unwrap();
        let empty = tmp.path().join("empty");
        fs::create_dir(&empty).unwrap();
        let path = std::env::join_paths([empty, tmp.path().join("usr/bin")]).unwrap();
        let jdk = locate(None, None, Some(path)).unwrap();
        assert_eq!(jdk.home, fs::canonicalize(&jdk_home).unwrap());
        assert_eq!(
            jdk.found_by,
            JdkSource::PathJava(tmp.path().join("usr/bin/java"))
        );
    }

    #[test]
    fn nothing_found_lists_what_was_searched() {
        let tmp = PrivateTempDir::new("test").unwrap();
        let err = locate(None, None, Some(tmp.path().into())).unwrap_err();
        let JvmError::NoJdk { searched } = &err else {
            panic!("{err:?}")
        };
        assert!(searched.contains("JAVA_HOME not set"), "{searched}");
        assert!(
            searched.contains(&tmp.path().display().to_string()),
            "{searched}"
        );
        assert!(err.to_string().starts_with("no JDK found"), "{err}");
        let err = locate(None, None, None).unwrap_err();
        assert!(err.to_string().contains("PATH is empty"), "{err}");
    }

    #[test]
    fn directory_without_libjvm_is_unusable_not_skipped() {
        let tmp = PrivateTempDir::new("test").unwrap();
        let jre_less = fake_jdk(tmp.path(), "broken", false, None);
        let good = fake_jdk(tmp.path(), "good", true, None);
        let err = locate(
            None,
            Some(jre_less.clone().into()),
            Some(good.join("bin").into()),
        )
        .unwrap_err();
        let JvmError::JdkUnusable { path, reason } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(path, &jre_less);
        assert!(
            reason.contains("lib/server/libjvm.so") && reason.contains("JAVA_HOME"),
            "{reason}"
        );
    }

    #[test]
    fn missing_java_home_directory_is_unusable() {
        let err = locate(Some(Path::new("/nonexistent/jdk")), None, None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "JDK at /nonexistent/jdk is unusable: not a directory (from --java-home)"
        );
    }

    #[test]
    fn java_older_than_17_is_unusable() {
        let tmp = PrivateTempDir::new("test").unwrap();
        let old = fake_jdk(tmp.path(), "jdk11", true, Some("11.0.22"));
        let err = locate(Some(&old), None, None).unwrap_err();
        assert!(
            err.to_string()
                .contains("it is Java 11.0.22; heapgrowth needs Java 17 or newer"),
            "{err}"
        );
    }

    #[test]
    fn feature_versions() {
        assert_eq!(feature_version("17.0.15"), Some(17));
        assert_eq!(feature_version("25"), Some(25));
        assert_eq!(feature_version("1.8.0_392"), Some(8));
        assert_eq!(feature_version("21-ea"), Some(21));
        assert_eq!(feature_version("garbage"), None);
    }
}
