//! Field values for [`HeapBuilder`](super::HeapBuilder) heaps, and how a dump encodes them.

use super::super::writer::put_id;
use super::{ClassId, ObjectId};
use crate::heap::{FieldType, PrimitiveType};

/// A field value to store. References to objects and classes convert with `.into()`, as do
/// `bool`, `i8`, `i16`, `i32`, `i64`, `f32` and `f64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A null reference (also what unset reference fields hold).
    Null,
    /// A reference.
    Ref(ObjectId),
    /// `boolean`.
    Boolean(bool),
    /// `char`.
    Char(u16),
    /// `float`.
    Float(f32),
    /// `double`.
    Double(f64),
    /// `byte`.
    Byte(i8),
    /// `short`.
    Short(i16),
    /// `int`.
    Int(i32),
    /// `long`.
    Long(i64),
}

impl From<ObjectId> for Value {
    fn from(object: ObjectId) -> Value {
        Value::Ref(object)
    }
}
impl From<ClassId> for Value {
    fn from(class: ClassId) -> Value {
        Value::Ref(class.object)
    }
}
impl From<Option<ObjectId>> for Value {
    fn from(object: Option<ObjectId>) -> Value {
        object.map_or(Value::Null, Value::Ref)
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Boolean(v)
    }
}
impl From<i8> for Value {
    fn from(v: i8) -> Value {
        Value::Byte(v)
    }
}
impl From<i16> for Value {
    fn from(v: i16) -> Value {
        Value::Short(v)
    }
}
impl From<i32> for Value {
    fn from(v: i32) -> Value {
        Value::Int(v)
    }
}
impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Long(v)
    }
}
impl From<f32> for Value {
    fn from(v: f32) -> Value {
        Value::Float(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Double(v)
    }
}

impl Value {
    pub(super) fn zero(ty: FieldType) -> Value {
        match ty {
            FieldType::Object => Value::Null,
            FieldType::Primitive(p) => match p {
                PrimitiveType::Boolean => Value::Boolean(false),
                PrimitiveType::Char => Value::Char(0),
                PrimitiveType::Float => Value::Float(0.0),
                PrimitiveType::Double => Value::Double(0.0),
                PrimitiveType::Byte => Value::Byte(0),
                PrimitiveType::Short => Value::Short(0),
                PrimitiveType::Int => Value::Int(0),
                PrimitiveType::Long => Value::Long(0),
            },
        }
    }

    pub(super) fn fits(self, ty: FieldType) -> bool {
        matches!(
            (self, ty),
            (Value::Null | Value::Ref(_), FieldType::Object)
                | (Value::Boolean(_), FieldType::BOOLEAN)
                | (Value::Char(_), FieldType::CHAR)
                | (Value::Float(_), FieldType::FLOAT)
                | (Value::Double(_), FieldType::DOUBLE)
                | (Value::Byte(_), FieldType::BYTE)
                | (Value::Short(_), FieldType::SHORT)
                | (Value::Int(_), FieldType::INT)
                | (Value::Long(_), FieldType::LONG)
        )
    }

    pub(super) fn encode(self, out: &mut Vec<u8>, id_size: u8) {
        match self {
            Value::Null => put_id(out, 0, id_size),
            Value::Ref(object) => put_id(out, object.0, id_size),
            Value::Boolean(v) => out.push(v as u8),
            Value::Byte(v) => out.push(v as u8),
            Value::Char(v) => out.extend_from_slice(&v.to_be_bytes()),
            Value::Short(v) => out.extend_from_slice(&v.to_be_bytes()),
            Value::Int(v) => out.extend_from_slice(&v.to_be_bytes()),
            Value::Float(v) => out.extend_from_slice(&v.to_be_bytes()),
            Value::Long(v) => out.extend_from_slice(&v.to_be_bytes()),
            Value::Double(v) => out.extend_from_slice(&v.to_be_bytes()),
        }
    }
}
