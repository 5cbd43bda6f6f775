//! Java type names (`int`, `java.lang.String[]`) and JNI descriptors (`I`, `[Ljava/lang/String;`).

/// Appends the JNI descriptor of the Java type `ty` (`int[]` → `[I`, `a.b.C` → `La/b/C;`).
pub(crate) fn push_java_type(ty: &str, out: &mut String) {
    let mut base = ty.trim();
    while let Some(b) = base.strip_suffix("[]") {
        out.push('[');
        base = b.trim_end();
    }
    let prim = match base {
        "void" => 'V',
        "boolean" => 'Z',
        "byte" => 'B',
        "char" => 'C',
        "short" => 'S',
        "int" => 'I',
        "long" => 'J',
        "float" => 'F',
        "double" => 'D',
        _ => {
            out.push('L');
            out.extend(base.chars().map(|c| if c == '.' { '/' } else { c }));
            out.push(';');
            return;
        }
    };
    out.push(prim);
}

/// The JNI method descriptor of a mapping's `return name(params)`: `(I[Ljava/lang/String;)V`.
/// `params` is the comma-separated text between the parentheses.
pub(crate) fn method_descriptor(ret: &str, params: &str) -> String {
    let mut out = String::with_capacity(params.len() + ret.len() + 8);
    push_method_descriptor(ret, params, &mut out);
    out
}

/// [`method_descriptor`] appended to `out`.
pub(crate) fn push_method_descriptor(ret: &str, params: &str, out: &mut String) {
    out.push('(');
    for p in params.split(',') {
        if !p.trim().is_empty() {
            push_java_type(p, out);
        }
    }
    out.push(')');
    push_java_type(ret, out);
}

/// Rewrites every class name in the JNI descriptor `desc` through `map` (which receives and
/// returns dotted names). Class names may use `/` (JNI) or `.` inside `L...;`; the result keeps
/// each name's separator style. `map` returning None keeps the name. Returns None when `desc` is
/// not a well-formed field or method descriptor (the caller keeps it unchanged).
pub(crate) fn map_descriptor<'m>(
    desc: &str,
    mut map: impl FnMut(&str) -> Option<&'m str>,
) -> Option<String> {
    let bytes = desc.as_bytes();
    let mut out = String::with_capacity(desc.len() + 16);
    let mut i = 0;
    let mut dotted = String::new();
    let mut parens = 0u8;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'(' if i == 0 => {
                parens = 1;
                out.push('(');
                i += 1;
            }
            b')' if parens == 1 => {
                parens = 2;
                out.push(')');
                i += 1;
            }
            b'[' | b'V' | b'Z' | b'B' | b'C' | b'S' | b'I' | b'J' | b'F' | b'D' => {
                out.push(c as char);
                i += 1;
            }
            b'L' => {
                let rest = &desc[i + 1..];
                let end = rest.find(';')?;
                let name = &rest[..end];
                if name.is_empty() || name.contains(['(', ')', '[']) {
                    return None;
                }
                let slashes = name.contains('/');
                dotted.clear();
                dotted.extend(name.chars().map(|c| if c == '/' { '.' } else { c }));
                out.push('L');
                let out_slashes = slashes || !name.contains('.');
                match map(&dotted) {
                    Some(orig) if out_slashes => {
                        out.extend(orig.chars().map(|c| if c == '.' { '/' } else { c }))
                    }
                    Some(orig) => out.push_str(orig),
                    None => out.push_str(name),
                }
                out.push(';');
                i += 1 + end + 1;
            }
            _ => return None,
        }
    }
    if parens == 1 {
        return None;
    }
    Some(out)
}

/// The descriptor with `/` separators (`(La.b.C;)V` → `(La/b/C;)V`).
pub(crate) fn normalize_slashes(desc: &str) -> std::borrow::Cow<'_, str> {
    if desc.contains('.') {
        std::borrow::Cow::Owned(desc.replace('.', "/"))
    } else {
        std::borrow::Cow::Borrowed(desc)
    }
}

/// Splits a JNI field descriptor at `i` into its Java type name (`[Ljava/lang/String;` →
/// `java.lang.String[]`) and the index after it.
fn java_type_at(desc: &str, mut i: usize) -> Option<(String, usize)> {
    let b = desc.as_bytes();
    let mut dims = 0;
    while b.get(i) == Some(&b'[') {
        dims += 1;
        i += 1;
    }
    let (mut name, next) = match *b.get(i)? {
        b'V' => ("void".to_string(), i + 1),
        b'Z' => ("boolean".to_string(), i + 1),
        b'B' => ("byte".to_string(), i + 1),
        b'C' => ("char".to_string(), i + 1),
        b'S' => ("short".to_string(), i + 1),
        b'I' => ("int".to_string(), i + 1),
        b'J' => ("long".to_string(), i + 1),
        b'F' => ("float".to_string(), i + 1),
        b'D' => ("double".to_string(), i + 1),
        b'L' => {
            let end = desc[i + 1..].find(';')? + i + 1;
            let n = &desc[i + 1..end];
            if n.is_empty() {
                return None;
            }
            (n.replace('/', "."), end + 1)
        }
        _ => return None,
    };
    for _ in 0..dims {
        name.push_str("[]");
    }
    Some((name, next))
}

/// The Java parameter and return types of a JNI method descriptor: `(I[La/B;)V` →
/// (`["int", "a.B[]"]`, `"void"`). None when it is not a method descriptor.
pub(crate) fn java_types(desc: &str) -> Option<(Vec<String>, String)> {
    let b = desc.as_bytes();
    if b.first() != Some(&b'(') {
        return None;
    }
    let mut i = 1;
    let mut params = Vec::new();
    while b.get(i) != Some(&b')') {
        let (t, next) = java_type_at(desc, i)?;
        if t == "void" {
            return None;
        }
        params.push(t);
        i = next;
    }
    let (ret, next) = java_type_at(desc, i + 1)?;
    (next == desc.len()).then_some((params, ret))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_types_to_jni() {
        assert_eq!(method_descriptor("void", ""), "()V");
        assert_eq!(
            method_descriptor("java.lang.String[][]", "int,long[],a.b.C"),
            "(I[JLa/b/C;)[[Ljava/lang/String;"
        );
        assert_eq!(method_descriptor("boolean", "char, byte"), "(CB)Z");
    }

    #[test]
    fn jni_to_java_and_back() {
        for d in ["()V", "(I[JLa/b/C;)[[Ljava/lang/String;", "(CB)Z", "([[I)D"] {
            let (params, ret) = java_types(d).unwrap();
            assert_eq!(method_descriptor(&ret, &params.join(",")), d);
        }
        assert_eq!(
            java_types("(I[La/B;)V").unwrap(),
            (
                vec!["int".to_string(), "a.B[]".to_string()],
                "void".to_string()
            )
        );
        for bad in [
            "", "V", "(", "(I", "(I)", "(V)V", "(L;)V", "(La/b)V", "()VV", "(X)V",
        ] {
            assert_eq!(java_types(bad), None, "{bad}");
        }
    }

    #[test]
    fn descriptors_are_mapped_in_either_style() {
        let map = |s: &str| match s {
            "a.b" => Some("com.example.Foo"),
            "c" => Some("com.example.Bar"),
            _ => None,
        };
        assert_eq!(
            map_descriptor("(La/b;I[Lc;Ljava/lang/String;)La/b;", map).unwrap(),
            "(Lcom/example/Foo;I[Lcom/example/Bar;Ljava/lang/String;)Lcom/example/Foo;"
        );
        assert_eq!(
            map_descriptor("(La.b;)V", map).unwrap(),
            "(Lcom.example.Foo;)V"
        );
        assert_eq!(map_descriptor("[Lc;", map).unwrap(), "[Lcom/example/Bar;");
        assert_eq!(map_descriptor("(La/b", map), None);
        assert_eq!(map_descriptor("(X)V", map), None);
        assert_eq!(map_descriptor("(I", map), None);
        assert_eq!(map_descriptor("", map).unwrap(), "");
    }
}
