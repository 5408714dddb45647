//! Typed indices into the world's arenas. A `PortId` can never be used where a `VcId` is meant.

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// One virtual connection: an ABR source, its destination and the route between them.
    VcId
);
id_type!(
    /// One output port, i.e. one direction of one link together with the buffer feeding it.
    PortId
);
id_type!(
    /// A node: a switch or an end-system host.
    NodeId
);
