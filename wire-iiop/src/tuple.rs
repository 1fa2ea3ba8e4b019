//! Tuples (up to 12) encode their elements in order, like an IDL struct: operation parameter
//! lists and results are tuples.

use marshal_core::{Error, Reader, Writer};

use crate::{ByteOrder, Decode, Encode, Shape};

macro_rules! tuple {
    ($($name:ident $idx:tt),+) => {
        impl<$($name: Encode),+> Encode for ($($name,)+) {
            const SHAPE: Shape = Shape::EMPTY $(.then($name::SHAPE))+;
            #[inline]
            fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
                $(let pos = self.$idx.end(pos, depth).map_err(|e| e.at_index($idx))?;)+
                Ok(pos)
            }
            #[inline]
            fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
                $(self.$idx.encode(w, order).map_err(|e| e.at_index($idx))?;)+
                Ok(())
            }
        }
        impl<'de, $($name: Decode<'de>),+> Decode<'de> for ($($name,)+) {
            const MIN: usize = 0 $(+ $name::MIN)+;
            const SHAPE: Shape = Shape::EMPTY $(.then($name::SHAPE))+;
            #[inline]
            fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
                Ok(($($name::decode(r, order).map_err(|e| e.at_index($idx))?,)+))
            }
        }
    };
}

tuple!(A 0);
tuple!(A 0, B 1);
tuple!(A 0, B 1, C 2);
tuple!(A 0, B 1, C 2, D 3);
tuple!(A 0, B 1, C 2, D 3, E 4);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
