//! Building a fixed-size array element by element, where each element may fail.

use core::mem::MaybeUninit;

/// Builds `[T; N]` from `f(0), f(1), …`, stopping at the first error (the elements built so
/// far are dropped). A stable stand-in for `core::array::try_from_fn`.
///
/// ```
/// let a: Result<[u32; 3], ()> = marshal_core::array::try_from_fn(|i| Ok(i as u32 * 2));
/// assert_eq!(a, Ok([0, 2, 4]));
/// let b: Result<[String; 3], &str> = marshal_core::array::try_from_fn(|i| if i < 2 { Ok(i.to_string()) } else { Err("no") });
/// assert_eq!(b, Err("no"));
/// ```
pub fn try_from_fn<T, E, const N: usize>(
    mut f: impl FnMut(usize) -> Result<T, E>,
) -> Result<[T; N], E> {
    /// Drops the initialised prefix if `f` fails or panics.
    struct Guard<'a, T, const N: usize> {
        arr: &'a mut [MaybeUninit<T>; N],
        init: usize,
    }
    impl<T, const N: usize> Drop for Guard<'_, T, N> {
        fn drop(&mut self) {
            for slot in &mut self.arr[..self.init] {
                // SAFETY: exactly the first `init` slots were written (see the loop below), and
                // each is dropped once, here, because the array is then forgotten.
                unsafe { slot.assume_init_drop() };
            }
        }
    }

    let mut arr: [MaybeUninit<T>; N] = [const { MaybeUninit::uninit() }; N];
    let mut guard = Guard {
        arr: &mut arr,
        init: 0,
    };
    while guard.init < N {
        let v = f(guard.init)?;
        guard.arr[guard.init].write(v);
        guard.init += 1;
    }
    core::mem::forget(guard);
    // SAFETY: all `N` slots were written by the loop; `[MaybeUninit<T>; N]` and `[T; N]` have
    // the same size and layout, and ownership moves out of `arr`, which is not used again.
    Ok(unsafe { core::mem::transmute_copy::<[MaybeUninit<T>; N], [T; N]>(&arr) })
}

#[cfg(test)]
mod tests {
    use super::try_from_fn;
    use std::rc::Rc;

    #[test]
    fn drops_prefix_on_error() {
        let token = Rc::new(());
        let r: Result<[Rc<()>; 4], ()> =
            try_from_fn(|i| if i < 3 { Ok(token.clone()) } else { Err(()) });
        assert!(r.is_err());
        assert_eq!(Rc::strong_count(&token), 1);
        let r: Result<[Rc<()>; 4], ()> = try_from_fn(|_| Ok(token.clone()));
        assert_eq!(Rc::strong_count(&token), 5);
        drop(r);
        assert_eq!(Rc::strong_count(&token), 1);
    }
}
