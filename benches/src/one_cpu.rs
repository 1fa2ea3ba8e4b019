//! Running a benchmark with every thread on one CPU.
//!
//! On a VM whose idle vCPUs halt, waking a thread on the other vCPU costs tens of
//! microseconds, which swamps whatever the two ends of a small round trip do. With the
//! client, the server and (through `fork`) a peer process all on one CPU, a round trip costs
//! what the two ends and the kernel do, and nothing for a vCPU to wake up.

use std::io;

/// The calling thread's CPU mask, narrowed to one CPU until dropped. Threads and processes
/// started meanwhile inherit the narrowed mask (and keep it after the drop).
#[derive(Debug)]
pub struct OneCpu {
    saved: libc::cpu_set_t,
    cpu: usize,
}

impl OneCpu {
    /// Narrows the calling thread to the first CPU it may run on.
    pub fn pin() -> io::Result<OneCpu> {
        let saved = current()?;
        // SAFETY: `CPU_ISSET` reads bit `i` of a `cpu_set_t`, whose `CPU_SETSIZE` bits are
        // all inside the struct; `i < CPU_SETSIZE`.
        let cpu = (0..libc::CPU_SETSIZE as usize)
            .find(|&i| unsafe { libc::CPU_ISSET(i, &saved) })
            .ok_or_else(|| io::Error::other("the thread may run on no CPU"))?;
        // SAFETY: `cpu_set_t` is a plain bit array, for which all zeros is the empty set.
        let mut one: libc::cpu_set_t = unsafe { core::mem::zeroed() };
        // SAFETY: `cpu < CPU_SETSIZE` (found above), so the bit lies inside `one`.
        unsafe { libc::CPU_SET(cpu, &mut one) };
        set(&one)?;
        Ok(OneCpu { saved, cpu })
    }

    /// The CPU the thread is held to.
    pub fn cpu(&self) -> usize {
        self.cpu
    }
}

impl Drop for OneCpu {
    fn drop(&mut self) {
        let _ = set(&self.saved);
    }
}

fn current() -> io::Result<libc::cpu_set_t> {
    // SAFETY: as in `pin`, all zeros is a valid (empty) `cpu_set_t`.
    let mut set: libc::cpu_set_t = unsafe { core::mem::zeroed() };
    // SAFETY: pid 0 is the calling thread; the size passed is the size of the struct the
    // pointer points to, which the kernel fills and does not keep.
    let r = unsafe { libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) };
    if r == 0 {
        Ok(set)
    } else {
        Err(io::Error::last_os_error())
    }
}

fn set(mask: &libc::cpu_set_t) -> io::Result<()> {
    // SAFETY: pid 0 is the calling thread; the kernel reads `size_of::<cpu_set_t>()` bytes
    // from `mask`, which is that large, and does not keep the pointer.
    let r = unsafe { libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), mask) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpus() -> usize {
        // SAFETY: `CPU_COUNT` counts the bits of a valid `cpu_set_t`.
        unsafe { libc::CPU_COUNT(&current().unwrap()) as usize }
    }

    #[test]
    fn pins_new_threads_and_restores_the_caller() {
        let before = cpus();
        let pin = OneCpu::pin().unwrap();
        assert_eq!(cpus(), 1);
        let (cpu, count) = std::thread::spawn(|| {
            // SAFETY: `sched_getcpu` takes nothing and returns a CPU number or -1.
            let cpu = unsafe { libc::sched_getcpu() };
            (cpu, cpus())
        })
        .join()
        .unwrap();
        assert_eq!(
            (cpu, count),
            (pin.cpu() as i32, 1),
            "a new thread inherits the pin"
        );
        drop(pin);
        assert_eq!(cpus(), before);
    }
}
