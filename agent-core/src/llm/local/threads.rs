//! How many threads decode uses when `model.threads` is not set: the
//! physical cores this process may run on (SMT siblings share a core's
//! arithmetic units, and llama.cpp's workers spin at barriers, so a second
//! thread per core or a thread on a core another process keeps busy slows
//! every token), less the cores other work keeps busy right now.

use std::time::Duration;

/// How long the CPU is watched to see how busy it is.
const SAMPLE: Duration = Duration::from_millis(60);

/// The thread count for the next turn.
pub(crate) fn choose() -> u32 {
    let physical = physical_cores();
    let busy = busy_cores(SAMPLE).unwrap_or(0.0);
    for_load(physical, busy)
}

/// `physical` cores less the ones `busy` (in cores' worth of work) takes,
/// rounded to the nearest core; never fewer than one.
pub(crate) fn for_load(physical: u32, busy: f64) -> u32 {
    let taken = busy.max(0.0).round() as u32;
    physical.saturating_sub(taken).max(1)
}

/// Physical cores among the CPUs this process may use (affinity and
/// cgroup limits as `available_parallelism` sees them).
pub fn physical_cores() -> u32 {
    let logical = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let Ok(cpuinfo) = std::fs::read_to_string("/proc/cpuinfo") else {
        return logical;
    };
    let allowed = allowed_cpus();
    let mut cores = std::collections::BTreeSet::new();
    let (mut cpu, mut package, mut core) = (None::<u32>, None::<u32>, None::<u32>);
    let field = |line: &str| line.split(':').nth(1).and_then(|v| v.trim().parse().ok());
    for line in cpuinfo.lines().chain(std::iter::once("")) {
        if line.trim().is_empty() {
            if let (Some(c), Some(p), Some(k)) = (cpu, package, core)
                && allowed.as_ref().is_none_or(|a| a.contains(&c))
            {
                cores.insert((p, k));
            }
            (cpu, package, core) = (None, None, None);
        } else if line.starts_with("processor") {
            cpu = field(line);
        } else if line.starts_with("physical id") {
            package = field(line);
        } else if line.starts_with("core id") {
            core = field(line);
        }
    }
    match cores.len() as u32 {
        0 => logical,
        n => n.min(logical),
    }
}

/// The CPUs in this process's affinity mask.
fn allowed_cpus() -> Option<Vec<u32>> {
    // SAFETY: a zeroed cpu_set_t is valid; sched_getaffinity writes at most
    // its size.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let ok =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if ok != 0 {
        return None;
    }
    Some(
        (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `i` is below CPU_SETSIZE.
            .filter(|&i| unsafe { libc::CPU_ISSET(i, &set) })
            .map(|i| i as u32)
            .collect(),
    )
}

/// Cores' worth of CPU time other work used over `window` (from
/// `/proc/stat`), measured while this process decodes nothing.
pub(crate) fn busy_cores(window: Duration) -> Option<f64> {
    let (busy_before, total_before) = cpu_times()?;
    std::thread::sleep(window);
    let (busy_after, total_after) = cpu_times()?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let total = total_after.saturating_sub(total_before);
    if total == 0 {
        return None;
    }
    let busy = busy_after.saturating_sub(busy_before) as f64 / total as f64;
    Some(busy * cpus)
}

/// Busy and total jiffies of all CPUs (the `cpu` line of `/proc/stat`).
fn cpu_times() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let values: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|v| v.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal
    let idle = values.get(3)? + values.get(4).unwrap_or(&0);
    let total: u64 = values.iter().take(8).sum();
    Some((total - idle, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_cores_are_left_to_their_work() {
        assert_eq!(for_load(2, 0.0), 2);
        assert_eq!(for_load(2, 0.4), 2);
        assert_eq!(for_load(2, 1.0), 1);
        assert_eq!(for_load(2, 2.0), 1);
        assert_eq!(for_load(8, 2.6), 5);
        assert_eq!(for_load(1, 3.0), 1);
    }

    #[test]
    fn this_machine_has_cores_and_a_load() {
        let physical = physical_cores();
        let logical = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        assert!(physical >= 1 && physical <= logical);
        let busy = busy_cores(Duration::from_millis(30)).unwrap();
        assert!(busy >= 0.0 && busy <= logical as f64 + 0.01, "{busy}");
    }
}
