//! Writes three heap dumps of a leak whose class, field, thread and string names carry
//! terminal escapes, CR LF and bidi controls (`DIR/hostile-1.hprof` to `-3`), for
//! scripts/probe-hostile.sh.
//!
//! ```text
//! cargo run --example hostile_dumps -- DIR
//! ```

fn main() {
    let Some(dir) = std::env::args_os().nth(1).map(std::path::PathBuf::from) else {
        eprintln!("usage: hostile_dumps DIR");
        std::process::exit(2);
    };
    let names: &[u8] = b"\x1b[31mRed\x1b]0;pwned\x07\r\nGcRoot(Forged)\xe2\x80\xae\xff\
        items\x1b[2J\xe2\x81\xa7x\xe2\x81\xa9</script><b>\xff\
        worker\n\xe2\x80\xaeevil\x1b[m\xff\
        secret\x1b[8m\r";
    for (n, dump) in heapgrowth::report::named_dumps(names).iter().enumerate() {
        let path = dir.join(format!("hostile-{}.hprof", n + 1));
        if let Err(error) = std::fs::write(&path, dump) {
            eprintln!("hostile_dumps: cannot write {}: {error}", path.display());
            std::process::exit(1);
        }
    }
}
