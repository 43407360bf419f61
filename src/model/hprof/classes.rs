//! Turns class dumps and LOAD CLASS records into [`ClassInfo`]s and the layouts the model reads
//! fields with.

use super::format::{self, PRIMITIVE_TYPES};
use super::id_map::IdMap;
use super::records::ClassDumpRecord;
use super::scan::TopLevel;
use super::{HprofError, ReadLimits};
use crate::heap::graph::{ClassLayout, RefSlot, NO_CLASS};
use crate::heap::{ClassIndex, ClassInfo, Field, FieldType};

/// Every class of the dump, indexed by [`ClassIndex`]: class dumps first (in dump order), then
/// array classes known only from LOAD CLASS, then whatever had to be made up (primitive array
/// classes and `java.lang.Class` when the dump has no class dump for them).
pub(crate) struct ResolvedClasses {
    pub infos: Vec<ClassInfo>,
    pub layouts: Vec<ClassLayout>,
    pub instance_slots: Vec<RefSlot>,
    pub static_value_pos: Vec<u32>,
    /// Class id (class dump, or LOAD CLASS of an array class) → class index.
    pub by_id: IdMap<ClassIndex>,
    /// Class of each primitive array type, in [`PRIMITIVE_TYPES`] order.
    pub primitive_array_classes: [ClassIndex; 8],
    pub java_lang_class: ClassIndex,
}

pub(crate) fn resolve_classes(
    data: &[u8],
    top: &TopLevel,
    dumps: &[ClassDumpRecord],
    id_size: u8,
    limits: &ReadLimits,
) -> Result<ResolvedClasses, HprofError> {
    let string = |string_id: u64| -> Option<String> {
        let &(offset, len) = top.strings.get(&string_id)?;
        let bytes = data.get(offset as usize..offset as usize + len as usize)?;
        // Modified UTF-8 differs from UTF-8 only for NUL and supplementary characters.
        Some(String::from_utf8_lossy(bytes).into_owned())
    };
    let class_name = |class_id: u64| -> String {
        top.class_names
            .get(&class_id)
            .and_then(|&name_id| string(name_id))
            .map(|jvm_name| format::java_class_name(&jvm_name))
            .unwrap_or_else(|| format!("<unknown class 0x{class_id:x}>"))
    };

    let mut by_id: IdMap<ClassIndex> =
        IdMap::with_capacity_and_hasher(dumps.len(), Default::default());
    for (index, dump) in dumps.iter().enumerate() {
        if by_id.insert(dump.class_id, index as ClassIndex).is_some() {
            return Err(HprofError::DuplicateId {
                offset: dump.file_offset,
                id: dump.class_id,
            });
        }
    }
    let supers = dumps
        .iter()
        .map(|dump| match dump.super_id {
            0 => Ok(None),
            super_id => by_id
                .get(&super_id)
                .copied()
                .map(Some)
                .ok_or(HprofError::MissingClass {
                    offset: dump.file_offset,
                    class_id: super_id,
                    what: "class dump (as its super class)",
                }),
        })
        .collect::<Result<Vec<_>, _>>()?;

    let mut infos = Vec::with_capacity(dumps.len() + 16);
    let mut layouts = Vec::with_capacity(dumps.len() + 16);
    let mut instance_slots = Vec::new();
    let mut static_value_pos = Vec::new();
    let mut own_sizes = Vec::with_capacity(dumps.len());
    for (dump, &super_class) in dumps.iter().zip(&supers) {
        let mut layout = ClassLayout {
            first_instance_slot: instance_slots.len() as u32,
            first_static_value: static_value_pos.len() as u32,
            next_with_refs: NO_CLASS,
            ..ClassLayout::default()
        };
        let mut own_size = 0u64;
        for (field, &(_, ty)) in dump.instance_fields.iter().enumerate() {
            if ty == FieldType::Object {
                instance_slots.push(RefSlot {
                    offset: own_size as u32,
                    field: field as u16,
                });
            }
            own_size += format::field_size(ty, id_size) as u64;
        }
        layout.instance_slot_count = instance_slots.len() as u32 - layout.first_instance_slot;
        for field in &dump.static_fields {
            static_value_pos.push(field.value_pos);
            layout.static_data_size += format::field_size(field.ty, id_size) as u64;
        }
        own_sizes.push(own_size);
        layouts.push(layout);
        let field = |&(name_id, ty): &(u64, FieldType)| Field {
            name: string(name_id).unwrap_or_else(|| format!("<unknown field 0x{name_id:x}>")),
            ty,
        };
        infos.push(ClassInfo {
            name: class_name(dump.class_id),
            super_class,
            object: None, // set once objects are indexed
            instance_fields: dump.instance_fields.iter().map(field).collect(),
            static_fields: dump
                .static_fields
                .iter()
                .map(|s| field(&(s.name_id, s.ty)))
                .collect(),
            instance_size: dump.instance_size,
            loader: None, // set once objects are indexed
        });
    }
    // Checked once after the loop: while the totals stay within the limit (at most
    // `u32::MAX`), none of the `as u32` positions above wrapped.
    for (table, count) in [
        ("reference fields (over all classes)", instance_slots.len()),
        ("static fields (over all classes)", static_value_pos.len()),
    ] {
        if count as u64 > limits.table_limit() {
            return Err(HprofError::TooManyTableEntries {
                table,
                count: count as u64,
                max: limits.table_limit(),
            });
        }
    }
    link_hierarchy(dumps, &supers, &own_sizes, &mut layouts)?;

    // Array classes that have a LOAD CLASS record but no class dump (HotSpot dumps them all;
    // other writers may not). Sorted by id so class indexes don't depend on hash order.
    let mut array_only: Vec<(u64, String)> = top
        .class_names
        .keys()
        .filter(|id| !by_id.contains_key(id))
        .map(|&id| (id, class_name(id)))
        .filter(|(_, name)| name.ends_with("[]"))
        .collect();
    array_only.sort_unstable();
    let object_class = infos
        .iter()
        .position(|c| c.name == "java.lang.Object")
        .map(|i| i as ClassIndex);
    for (id, name) in array_only {
        by_id.insert(id, infos.len() as ClassIndex);
        push_synthetic(
            &mut infos,
            &mut layouts,
            &static_value_pos,
            name,
            object_class,
        );
    }

    let mut primitive_array_classes = [0; 8];
    for (slot, ty) in primitive_array_classes.iter_mut().zip(PRIMITIVE_TYPES) {
        let name = format!("{}[]", ty.java_name());
        let class = match infos.iter().position(|c| c.name == name) {
            Some(existing) => existing,
            None => push_synthetic(
                &mut infos,
                &mut layouts,
                &static_value_pos,
                name,
                object_class,
            ),
        };
        layouts[class].primitive_element = Some(ty);
        *slot = class as ClassIndex;
    }
    let java_lang_class = match infos.iter().position(|c| c.name == "java.lang.Class") {
        Some(existing) => existing,
        None => push_synthetic(
            &mut infos,
            &mut layouts,
            &static_value_pos,
            "java.lang.Class".into(),
            object_class,
        ),
    } as ClassIndex;

    if infos.len() as u64 > limits.class_limit() {
        return Err(HprofError::TooManyClasses {
            count: infos.len() as u64,
            max: limits.class_limit(),
        });
    }
    Ok(ResolvedClasses {
        infos,
        layouts,
        instance_slots,
        static_value_pos,
        by_id,
        primitive_array_classes,
        java_lang_class,
    })
}

/// A class with no class dump: no fields, no class object.
fn push_synthetic(
    infos: &mut Vec<ClassInfo>,
    layouts: &mut Vec<ClassLayout>,
    static_value_pos: &[u32],
    name: String,
    super_class: Option<ClassIndex>,
) -> usize {
    infos.push(ClassInfo {
        name,
        super_class,
        object: None,
        instance_fields: Vec::new(),
        static_fields: Vec::new(),
        instance_size: 0,
        loader: None,
    });
    layouts.push(ClassLayout {
        first_static_value: static_value_pos.len() as u32,
        next_with_refs: NO_CLASS,
        ..ClassLayout::default()
    });
    infos.len() - 1
}

/// Fills `hierarchy_size` and `next_with_refs` of every class dump's layout, walking each super
/// class chain once and failing on a chain that loops (a corrupt dump could otherwise make
/// every later walk of the chain endless).
fn link_hierarchy(
    dumps: &[ClassDumpRecord],
    supers: &[Option<ClassIndex>],
    own_sizes: &[u64],
    layouts: &mut [ClassLayout],
) -> Result<(), HprofError> {
    const UNVISITED: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![UNVISITED; dumps.len()];
    let mut path = Vec::new();
    for start in 0..dumps.len() {
        let mut class = Some(start);
        while let Some(c) = class {
            match state[c] {
                DONE => break,
                ON_PATH => {
                    return Err(HprofError::SuperClassCycle {
                        offset: dumps[c].file_offset,
                        class_id: dumps[c].class_id,
                    })
                }
                _ => {}
            }
            state[c] = ON_PATH;
            path.push(c);
            class = supers[c].map(|s| s as usize);
        }
        // Unwind from the top of the chain down, so each super class is done first.
        while let Some(c) = path.pop() {
            let (super_size, next_with_refs) = match supers[c] {
                None => (0, NO_CLASS),
                Some(s) => {
                    let parent = &layouts[s as usize];
                    let next = if parent.instance_slot_count > 0 {
                        s
                    } else {
                        parent.next_with_refs
                    };
                    (parent.hierarchy_size, next)
                }
            };
            layouts[c].hierarchy_size = own_sizes[c] + super_size;
            layouts[c].next_with_refs = next_with_refs;
            state[c] = DONE;
        }
    }
    Ok(())
}
