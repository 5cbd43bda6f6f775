//! Methods of one trace found in another by their key (class, name, signature): the compare
//! views match rows across runs this way.

use crate::analysis::diff::MethodKey;
use crate::trace::{MethodId, Trace};

/// A class name in one spelling: `a/b/C` (as some VMs write it) becomes `a.b.C`, so the same
/// method matches across traces that spell classes differently.
pub(crate) fn normalized_key(k: &MethodKey) -> MethodKey {
    MethodKey {
        class: if k.class.contains('/') {
            k.class.replace('/', ".").into()
        } else {
            k.class.clone()
        },
        name: k.name.clone(),
        signature: k.signature.clone(),
    }
}

/// The method of `trace` with this key (class names compared normalized), if any.
pub(crate) fn method_in(trace: &Trace, key: &MethodKey) -> Option<MethodId> {
    let key = normalized_key(key);
    (0..trace.methods.len() as u32)
        .map(MethodId)
        .find(|&m| normalized_key(&MethodKey::of(trace, m)) == key)
}
