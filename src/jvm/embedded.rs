//! The Java glue jar and the JVMTI agent library, built by build.rs and embedded here, so the
//! heapgrowth binary (after `cargo install`) and test binaries that depend on the heapgrowth
//! crate carry everything they load into the JVM.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::tempdir::PrivateTempDir;

const GLUE_JAR: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/heapgrowth-glue.jar"));
const AGENT_LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libheapgrowth_agent.so"));

/// The embedded files, written out to a private temporary directory (deleted on drop).
#[derive(Debug)]
pub(crate) struct Extracted {
    pub(crate) glue_jar: PathBuf,
    pub(crate) agent_library: PathBuf,
    // Last, so the paths above are dropped before the directory (cosmetic: they are plain data).
    _dir: PrivateTempDir,
}

/// Writes the glue jar and the agent library into a new private temporary directory. A shared,
/// predictable path would let another user swap in their own agent, which the JVM would run.
pub(crate) fn extract() -> io::Result<Extracted> {
    let dir = PrivateTempDir::new("jvm")?;
    let glue_jar = dir.path().join("heapgrowth-glue.jar");
    let agent_library = dir.path().join("libheapgrowth_agent.so");
    write_new(&glue_jar, GLUE_JAR, 0o600)?;
    // Readable and executable by the owner only; the loader maps it executable.
    write_new(&agent_library, AGENT_LIBRARY, 0o700)?;
    Ok(Extracted {
        glue_jar,
        agent_library,
        _dir: dir,
    })
}

/// The agent library alone, for loading into a running JVM (`heapgrowth watch`), in a private
/// temporary directory of its own (deleted on drop). The JVM maps the file when it loads it and
/// reopens nothing later, but a second load of the same path finds the library loaded already,
/// so keep this for as long as the JVM is watched.
#[derive(Debug)]
pub(crate) struct ExtractedAgent {
    pub(crate) library: PathBuf,
    _dir: PrivateTempDir,
}

/// Writes the agent library into a new private temporary directory, as [`extract`] does.
pub(crate) fn extract_agent() -> io::Result<ExtractedAgent> {
    let dir = PrivateTempDir::new("agent")?;
    let library = dir.path().join("libheapgrowth_agent.so");
    write_new(&library, AGENT_LIBRARY, 0o700)?;
    Ok(ExtractedAgent { library, _dir: dir })
}

/// Creates `path` (failing if it exists) with `mode` and writes `bytes`.
fn write_new(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn extracts_both_artifacts_privately_and_deletes_them() {
        let extracted = extract().unwrap();
        assert_eq!(std::fs::read(&extracted.glue_jar).unwrap(), GLUE_JAR);
        assert!(GLUE_JAR.starts_with(b"PK"), "the glue is a jar (zip)");
        assert!(
            AGENT_LIBRARY.starts_with(b"\x7fELF"),
            "the agent is an ELF shared object"
        );
        let mode = std::fs::metadata(&extracted.agent_library).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700);
        let dir = extracted.glue_jar.parent().unwrap().to_path_buf();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        drop(extracted);
        assert!(!dir.exists());

        let agent = extract_agent().unwrap();
        assert_eq!(std::fs::read(&agent.library).unwrap(), AGENT_LIBRARY);
        let dir = agent.library.parent().unwrap().to_path_buf();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        drop(agent);
        assert!(!dir.exists());
    }
}
