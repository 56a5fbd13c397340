//! The progress bar of long `--simulate` runs (`docs/cli.md`, "Progress"):
//! drawn on standard error only when it is a terminal, and only once a
//! run has lasted [`DELAY`]; never otherwise, so piped or captured
//! standard error gets no extra bytes.
//!
//! The simulation counts finished elements in a shared atomic
//! ([`ctm::simulate::Progress`], one add per SIMD group); a helper
//! thread reads it a few times a second and draws with `indicatif`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ctm::simulate::Progress;

/// How long a run goes before the bar appears.
pub const DELAY: Duration = Duration::from_secs(1);
/// How often the bar is redrawn.
const TICK: Duration = Duration::from_millis(100);

/// A running progress display; [`Bar::finish`] (or dropping it) stops and
/// clears it.
pub struct Bar {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Bar {
    /// Start watching `progress` (`total` elements expected, if known).
    /// With `terminal` false nothing is started: no thread, no output.
    pub fn start(progress: &Progress, total: Option<u64>, terminal: bool) -> Bar {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = terminal.then(|| {
            let (progress, stop) = (progress.clone(), stop.clone());
            std::thread::spawn(move || draw(&progress, total, &stop))
        });
        Bar { stop, thread }
    }

    /// Whether a helper thread was started (false when standard error is
    /// not a terminal).
    #[cfg(test)]
    pub fn is_active(&self) -> bool {
        self.thread.is_some()
    }

    /// Stop and clear the bar.
    pub fn finish(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            // A panic of the drawing thread only loses the bar.
            let _ = thread.join();
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.halt();
    }
}

/// Sleep in ticks until `until` or a stop; true if stopped.
fn wait(stop: &AtomicBool, until: Instant) -> bool {
    while Instant::now() < until {
        if stop.load(Ordering::Relaxed) {
            return true;
        }
        std::thread::sleep(TICK.min(until.saturating_duration_since(Instant::now())));
    }
    stop.load(Ordering::Relaxed)
}

fn draw(progress: &Progress, total: Option<u64>, stop: &AtomicBool) {
    if wait(stop, Instant::now() + DELAY) {
        return;
    }
    let target = indicatif::ProgressDrawTarget::stderr();
    let bar = match total {
        Some(n) => indicatif::ProgressBar::with_draw_target(Some(n), target),
        None => indicatif::ProgressBar::with_draw_target(None, target),
    };
    let template = match total {
        Some(_) => "simulating {bar:30} {pos}/{len} elements, {elapsed} (eta {eta})",
        None => "simulating {pos} elements, {elapsed}",
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    loop {
        bar.set_position(progress.done());
        if wait(stop, Instant::now() + TICK) {
            break;
        }
    }
    bar.finish_and_clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_starts_without_a_terminal() {
        let progress = Progress::new();
        let bar = Bar::start(&progress, Some(10), false);
        assert!(!bar.is_active());
        bar.finish();
    }

    #[test]
    fn a_bar_stopped_early_draws_nothing_and_ends() {
        // Stopped before the delay: the thread ends without drawing.
        let progress = Progress::new();
        let bar = Bar::start(&progress, Some(10), true);
        assert!(bar.is_active());
        bar.finish();
    }
}
