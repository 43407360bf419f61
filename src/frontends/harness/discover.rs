//! Finding the scenarios of a package without a JVM: class files are read from directories and
//! jars in Rust, so `--list` (which `cargo nextest` calls once per test binary) stays fast.
//!
//! A scenario is a public, concrete, top-level class of exactly that package (not its
//! subpackages) that implements `java.lang.Runnable`, directly or through its superclasses and
//! superinterfaces, and has a public no-arg constructor. Supertypes are looked up on the same
//! class path; of the JDK's own types, only the ones below are known to be `Runnable`.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// JDK types that implement `Runnable` and that a scenario might extend (internal names).
const JDK_RUNNABLES: &[&str] = &[
    "java/lang/Runnable",
    "java/lang/Thread",
    "java/util/TimerTask",
    "java/util/concurrent/FutureTask",
    "java/util/concurrent/RunnableFuture",
    "java/util/concurrent/RunnableScheduledFuture",
    "java/util/concurrent/ForkJoinWorkerThread",
];

/// How deep a supertype chain is followed (guards against a corrupt or cyclic hierarchy).
const MAX_SUPERTYPE_DEPTH: usize = 64;

const ACC_PUBLIC: u16 = 0x0001;
const ACC_INTERFACE: u16 = 0x0200;
const ACC_ABSTRACT: u16 = 0x0400;

/// Scenario class names (`com.example.Foo`) in `package`, sorted.
pub(crate) fn scenarios_in(classpath: &[PathBuf], package: &str) -> Result<Vec<String>, String> {
    let classpath = ClassPath::open(classpath)?;
    let package_path = package.replace('.', "/");
    let mut resolver = Resolver {
        classpath: &classpath,
        runnable: HashMap::new(),
    };
    let mut found = Vec::new();
    for name in classpath.classes_in(&package_path) {
        if name.contains('$') {
            continue; // nested, local and anonymous classes
        }
        let Some(bytes) = classpath.read(&name)? else {
            continue;
        };
        let class = ClassFile::parse(&bytes).map_err(|e| format!("{name}.class: {e}"))?;
        let concrete_public =
            class.access & ACC_PUBLIC != 0 && class.access & (ACC_INTERFACE | ACC_ABSTRACT) == 0;
        if concrete_public && class.public_no_arg_constructor && resolver.is_runnable(&class, 0)? {
            found.push(name.replace('/', "."));
        }
    }
    Ok(found)
}

struct Resolver<'c> {
    classpath: &'c ClassPath,
    runnable: HashMap<String, bool>,
}

impl Resolver<'_> {
    fn is_runnable(&mut self, class: &ClassFile, depth: usize) -> Result<bool, String> {
        for supertype in class.superclass.iter().chain(&class.interfaces) {
            if self.is_runnable_name(supertype, depth + 1)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn is_runnable_name(&mut self, name: &str, depth: usize) -> Result<bool, String> {
        if JDK_RUNNABLES.contains(&name) {
            return Ok(true);
        }
        if depth > MAX_SUPERTYPE_DEPTH || name.starts_with("java/") {
            return Ok(false);
        }
        if let Some(&known) = self.runnable.get(name) {
            return Ok(known);
        }
        self.runnable.insert(name.to_owned(), false); // cycles end here
        let answer = match self.classpath.read(name)? {
            Some(bytes) => {
                let class = ClassFile::parse(&bytes).map_err(|e| format!("{name}.class: {e}"))?;
                self.is_runnable(&class, depth)?
            }
            None => false,
        };
        self.runnable.insert(name.to_owned(), answer);
        Ok(answer)
    }
}

/// Directories and jars, in class path order.
struct ClassPath {
    entries: Vec<Entry>,
}

enum Entry {
    Dir(PathBuf),
    Jar(Jar),
}

impl ClassPath {
    fn open(paths: &[PathBuf]) -> Result<ClassPath, String> {
        let entries = paths
            .iter()
            .map(|path| {
                if path.is_dir() {
                    Ok(Entry::Dir(path.clone()))
                } else if path.is_file() {
                    Jar::open(path)
                        .map(Entry::Jar)
                        .map_err(|e| format!("cannot read jar {}: {e}", path.display()))
                } else {
                    Err(format!(
                        "class path entry {} does not exist",
                        path.display()
                    ))
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(ClassPath { entries })
    }

    /// Internal names of the classes directly in `package_path` (`com/example`), sorted.
    fn classes_in(&self, package_path: &str) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        for entry in &self.entries {
            match entry {
                Entry::Dir(dir) => {
                    let Ok(listing) = std::fs::read_dir(dir.join(package_path)) else {
                        continue;
                    };
                    for file in listing.flatten() {
                        let file_name = file.file_name();
                        if let Some(stem) =
                            file_name.to_str().and_then(|n| n.strip_suffix(".class"))
                        {
                            names.insert(qualified(package_path, stem));
                        }
                    }
                }
                Entry::Jar(jar) => {
                    for name in jar.entries.keys() {
                        let Some(class) = name.strip_suffix(".class") else {
                            continue;
                        };
                        let (package, stem) = class.rsplit_once('/').unwrap_or(("", class));
                        if package == package_path {
                            names.insert(qualified(package_path, stem));
                        }
                    }
                }
            }
        }
        names
    }

    /// The bytes of class `internal_name` from the first entry that has it.
    fn read(&self, internal_name: &str) -> Result<Option<Vec<u8>>, String> {
        let file_name = format!("{internal_name}.class");
        for entry in &self.entries {
            match entry {
                Entry::Dir(dir) => {
                    let path = dir.join(&file_name);
                    if path.is_file() {
                        return std::fs::read(&path)
                            .map(Some)
                            .map_err(|e| format!("cannot read {}: {e}", path.display()));
                    }
                }
                Entry::Jar(jar) => {
                    if let Some(bytes) = jar.read(&file_name)? {
                        return Ok(Some(bytes));
                    }
                }
            }
        }
        Ok(None)
    }
}

fn qualified(package_path: &str, stem: &str) -> String {
    if package_path.is_empty() {
        stem.to_owned()
    } else {
        format!("{package_path}/{stem}")
    }
}

/// A jar (zip) read through its central directory; entries are stored or deflated. Zip64 is
/// not supported (a jar of class files over 4 GiB).
struct Jar {
    path: PathBuf,
    bytes: Vec<u8>,
    entries: HashMap<String, JarEntry>,
}

#[derive(Clone, Copy)]
struct JarEntry {
    method: u16,
    compressed_size: usize,
    local_header: usize,
}

const END_OF_CENTRAL_DIRECTORY: u32 = 0x0605_4b50;
const CENTRAL_DIRECTORY_ENTRY: u32 = 0x0201_4b50;
const LOCAL_FILE_HEADER: u32 = 0x0403_4b50;
const STORED: u16 = 0;
const DEFLATED: u16 = 8;

impl Jar {
    fn open(path: &Path) -> Result<Jar, String> {
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        let reader = Bytes(&bytes);
        // The end record is in the last 22 + 65535 (comment) bytes.
        let search_from = bytes.len().saturating_sub(22 + 0xffff);
        let end = (search_from..bytes.len().saturating_sub(21))
            .rev()
            .find(|&at| reader.u32(at) == Some(END_OF_CENTRAL_DIRECTORY))
            .ok_or("not a zip file (no end of central directory)")?;
        let count = reader.u16(end + 10).ok_or(TRUNCATED)? as usize;
        let mut at = reader.u32(end + 16).ok_or(TRUNCATED)? as usize;
        let mut entries = HashMap::with_capacity(count);
        for _ in 0..count {
            if reader.u32(at) != Some(CENTRAL_DIRECTORY_ENTRY) {
                return Err("corrupt central directory".into());
            }
            let method = reader.u16(at + 10).ok_or(TRUNCATED)?;
            let compressed_size = reader.u32(at + 20).ok_or(TRUNCATED)? as usize;
            let name_len = reader.u16(at + 28).ok_or(TRUNCATED)? as usize;
            let extra_len = reader.u16(at + 30).ok_or(TRUNCATED)? as usize;
            let comment_len = reader.u16(at + 32).ok_or(TRUNCATED)? as usize;
            let local_header = reader.u32(at + 42).ok_or(TRUNCATED)? as usize;
            let name = reader.slice(at + 46, name_len).ok_or(TRUNCATED)?;
            let name = String::from_utf8_lossy(name).into_owned();
            entries.insert(
                name,
                JarEntry {
                    method,
                    compressed_size,
                    local_header,
                },
            );
            at += 46 + name_len + extra_len + comment_len;
        }
        Ok(Jar {
            path: path.to_owned(),
            bytes,
            entries,
        })
    }

    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, String> {
        let Some(entry) = self.entries.get(name) else {
            return Ok(None);
        };
        let error = |what: &str| {
            format!(
                "cannot read {name} from jar {}: {what}",
                self.path.display()
            )
        };
        let reader = Bytes(&self.bytes);
        let at = entry.local_header;
        if reader.u32(at) != Some(LOCAL_FILE_HEADER) {
            return Err(error("corrupt local header"));
        }
        let name_len = reader.u16(at + 26).ok_or_else(|| error(TRUNCATED))? as usize;
        let extra_len = reader.u16(at + 28).ok_or_else(|| error(TRUNCATED))? as usize;
        let data = reader
            .slice(at + 30 + name_len + extra_len, entry.compressed_size)
            .ok_or_else(|| error(TRUNCATED))?;
        match entry.method {
            STORED => Ok(Some(data.to_vec())),
            DEFLATED => miniz_oxide::inflate::decompress_to_vec(data)
                .map(Some)
                .map_err(|e| error(&format!("bad deflate data ({e:?})"))),
            other => Err(error(&format!("unsupported compression method {other}"))),
        }
    }
}

const TRUNCATED: &str = "truncated";

/// Little-endian reads for zip records.
struct Bytes<'a>(&'a [u8]);

impl<'a> Bytes<'a> {
    fn slice(&self, at: usize, len: usize) -> Option<&'a [u8]> {
        self.0.get(at..at.checked_add(len)?)
    }
    fn u16(&self, at: usize) -> Option<u16> {
        self.slice(at, 2).map(|b| u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&self, at: usize) -> Option<u32> {
        self.slice(at, 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// What discovery needs from a class file.
#[derive(Debug, PartialEq, Eq)]
struct ClassFile {
    access: u16,
    superclass: Option<String>,
    interfaces: Vec<String>,
    public_no_arg_constructor: bool,
}

/// Big-endian reads for class files, failing on truncation.
struct ClassReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl ClassReader<'_> {
    fn take(&mut self, len: usize) -> Result<&[u8], String> {
        let slice = self
            .bytes
            .get(self.at..self.at + len)
            .ok_or("truncated class file")?;
        self.at += len;
        Ok(slice)
    }
    fn u16(&mut self) -> Result<u16, String> {
        self.take(2).map(|b| u16::from_be_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, String> {
        self.take(4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

#[derive(Clone, Debug)]
enum Constant {
    Utf8(String),
    Class(u16),
    Other,
}

impl ClassFile {
    fn parse(bytes: &[u8]) -> Result<ClassFile, String> {
        let mut r = ClassReader { bytes, at: 0 };
        if r.u32()? != 0xCAFE_BABE {
            return Err("not a class file".into());
        }
        r.take(4)?; // minor, major version
        let count = r.u16()? as usize;
        let mut pool = vec![Constant::Other; count.max(1)];
        let mut index = 1;
        while index < count {
            let tag = r.take(1)?[0];
            pool[index] = match tag {
                1 => {
                    let len = r.u16()? as usize;
                    // Modified UTF-8 differs from UTF-8 only for NUL and supplementary
                    // characters, which don't occur in the names compared here.
                    Constant::Utf8(String::from_utf8_lossy(r.take(len)?).into_owned())
                }
                7 => Constant::Class(r.u16()?),
                8 | 16 | 19 | 20 => {
                    r.take(2)?;
                    Constant::Other
                }
                15 => {
                    r.take(3)?;
                    Constant::Other
                }
                3 | 4 | 9 | 10 | 11 | 12 | 17 | 18 => {
                    r.take(4)?;
                    Constant::Other
                }
                5 | 6 => {
                    r.take(8)?;
                    index += 1; // longs and doubles take two slots
                    Constant::Other
                }
                other => return Err(format!("unknown constant pool tag {other}")),
            };
            index += 1;
        }
        let utf8 = |i: u16| match pool.get(i as usize) {
            Some(Constant::Utf8(s)) => Ok(s.clone()),
            _ => Err(format!("constant {i} is not a string")),
        };
        let class_name = |i: u16| match pool.get(i as usize) {
            Some(Constant::Class(name)) => utf8(*name),
            _ => Err(format!("constant {i} is not a class")),
        };
        let access = r.u16()?;
        r.u16()?; // this class
        let superclass = match r.u16()? {
            0 => None,
            i => Some(class_name(i)?),
        };
        let interface_count = r.u16()?;
        let interfaces = (0..interface_count)
            .map(|_| class_name(r.u16()?))
            .collect::<Result<_, _>>()?;
        skip_members(&mut r)?; // fields
        let mut public_no_arg_constructor = false;
        for _ in 0..r.u16()? {
            let method_access = r.u16()?;
            let name = utf8(r.u16()?)?;
            let descriptor = utf8(r.u16()?)?;
            skip_attributes(&mut r)?;
            if name == "<init>" && descriptor == "()V" && method_access & ACC_PUBLIC != 0 {
                public_no_arg_constructor = true;
            }
        }
        Ok(ClassFile {
            access,
            superclass,
            interfaces,
            public_no_arg_constructor,
        })
    }
}

fn skip_members(r: &mut ClassReader) -> Result<(), String> {
    for _ in 0..r.u16()? {
        r.take(6)?;
        skip_attributes(r)?;
    }
    Ok(())
}

fn skip_attributes(r: &mut ClassReader) -> Result<(), String> {
    for _ in 0..r.u16()? {
        r.u16()?;
        let len = r.u32()? as usize;
        r.take(len)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_class_file_is_an_error_not_a_panic() {
        assert!(ClassFile::parse(&[0xCA, 0xFE, 0xBA, 0xBE, 0, 0]).is_err());
        assert!(ClassFile::parse(b"PK\x03\x04").is_err());
    }

    #[test]
    fn missing_class_path_entry_is_named() {
        let error = scenarios_in(&[PathBuf::from("/nonexistent/classes")], "p").unwrap_err();
        assert!(
            error.contains("/nonexistent/classes does not exist"),
            "{error}"
        );
    }
}
