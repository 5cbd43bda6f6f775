//! Typed `u32` handles. Every table in [`crate::trace::Trace`] is addressed by one of these,
//! never by a bare integer, so a thread index can't be passed where a method index belongs.

macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The index into the owning table.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

typed_id!(
    /// A method (or scope, or probe block) in [`crate::trace::Trace::methods`].
    MethodId
);
typed_id!(
    /// A thread in [`crate::trace::Trace::threads`].
    ThreadId
);
typed_id!(
    /// An interned string in [`crate::trace::StringTable`].
    StrId
);
