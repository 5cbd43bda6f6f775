//! Known work placed on the generated trace's main thread (`gen --frames`, `--blocking`,
//! `--startup`), so that tests can check the insights to the microsecond.
//!
//! The work is a list of *scenes*: the startup phases (if asked for), then one
//! `Choreographer.doFrame` call per frame. A scene is a run of the main thread's records with
//! exact times, written in one piece between the random walk's records: it nests inside
//! whatever call the main thread is in, and leaves its stack as it found it.
//!
//! Frame `k` (from 1) lasts `frame_us`, or `jank_us` when `k` is a multiple of `jank_every`.
//! Inside it, one call per `--blocking` entry, in order, each `us` long, starting 1 µs after
//! the previous one ended (the first 1 µs after the frame's entry). The thread's CPU clock runs
//! with the wall clock, except inside a blocking call: a frame's CPU time is its duration less
//! its blocking calls.

use super::super::writer::MethodDef;
use crate::trace::Action;

/// The method each `--blocking` category calls: (category, class, name, signature).
pub const BLOCKING_METHODS: &[(&str, &str, &str, &str)] = &[
    (
        "binder",
        "android.os.BinderProxy",
        "transact",
        "(ILandroid/os/Parcel;Landroid/os/Parcel;I)Z",
    ),
    (
        "disk",
        "libcore.io.BlockGuardOs",
        "read",
        "(Ljava/io/FileDescriptor;[BII)I",
    ),
    (
        "network",
        "libcore.io.BlockGuardOs",
        "recvfrom",
        "(Ljava/io/FileDescriptor;[BIIILjava/net/InetSocketAddress;)I",
    ),
    ("lock", "java.lang.Object", "wait", "()V"),
    ("sleep", "java.lang.Thread", "sleep", "(J)V"),
    (
        "inflate",
        "android.view.LayoutInflater",
        "inflate",
        "(ILandroid/view/ViewGroup;)Landroid/view/View;",
    ),
    (
        "class-load",
        "java.lang.ClassLoader",
        "loadClass",
        "(Ljava/lang/String;)Ljava/lang/Class;",
    ),
];

/// The startup phases of `--startup`: (class, name, signature, µs), in order; the second runs
/// inside the first, the others one after the other.
const STARTUP_METHODS: &[(&str, &str, &str, u64)] = &[
    (
        "android.app.ActivityThread",
        "handleBindApplication",
        "(Landroid/app/ActivityThread$AppBindData;)V",
        12_000,
    ),
    (
        "android.app.Instrumentation",
        "callApplicationOnCreate",
        "(Landroid/app/Application;)V",
        7_000,
    ),
    (
        "android.app.Activity",
        "performCreate",
        "(Landroid/os/Bundle;)V",
        20_000,
    ),
    (
        "android.app.Activity",
        "performStart",
        "(Ljava/lang/String;)V",
        3_000,
    ),
    (
        "android.app.Activity",
        "performResume",
        "(ZLjava/lang/String;)V",
        4_000,
    ),
];

const FRAME_METHOD: (&str, &str, &str) = ("android.view.Choreographer", "doFrame", "(JI)V");

/// What to place on the main thread.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MainScript {
    pub frames: u32,
    /// The duration of a frame, µs.
    pub frame_us: u64,
    /// Every this many frames one is janky (0: none).
    pub jank_every: u32,
    /// The duration of a janky frame, µs.
    pub jank_us: u64,
    /// Calls in every frame: (index in [`BLOCKING_METHODS`], µs).
    pub blocking: Vec<(usize, u64)>,
    pub startup: bool,
}

/// One record of a scene: the script's method, the action, and the wall and CPU times since
/// the scene's start, µs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ScriptRecord {
    pub method: usize,
    pub action: Action,
    pub wall_us: u64,
    pub cpu_us: u64,
}

impl MainScript {
    /// Whether there is anything to place.
    pub fn is_empty(&self) -> bool {
        self.frames == 0 && !self.startup
    }

    /// `--blocking CATEGORY:US` → the index of the category's method.
    pub fn blocking_index(category: &str) -> Option<usize> {
        BLOCKING_METHODS.iter().position(|b| b.0 == category)
    }

    /// A frame's duration, frame `k` from 1.
    pub fn frame_duration_us(&self, k: u32) -> u64 {
        let janky = self.jank_every > 0 && k.is_multiple_of(self.jank_every);
        if janky { self.jank_us } else { self.frame_us }
    }

    /// An error when a frame is too short for its blocking calls.
    pub fn check(&self) -> Result<(), String> {
        let needed: u64 = self.blocking.iter().map(|&(_, us)| us + 1).sum();
        let shortest = match self.jank_every {
            0 => self.frame_us,
            _ => self.frame_us.min(self.jank_us),
        };
        if self.frames > 0 && needed >= shortest {
            return Err(format!(
                "the blocking calls take {needed} us of each frame (1 us before each), more than \
                 a frame's {shortest} us"
            ));
        }
        Ok(())
    }

    /// The script's methods, with key ids from `first_id` on (multiples of 4): the frame
    /// method, the blocking ones, then the startup ones.
    pub(crate) fn methods(&self, first_id: u32) -> Vec<MethodDef> {
        let frame = std::iter::once(FRAME_METHOD);
        let blocking = BLOCKING_METHODS.iter().map(|&(_, c, n, s)| (c, n, s));
        let startup = STARTUP_METHODS.iter().map(|&(c, n, s, _)| (c, n, s));
        (frame.chain(blocking).chain(startup).enumerate())
            .map(|(i, (class, name, signature))| MethodDef {
                id: first_id + 4 * i as u32,
                class: class.to_string(),
                name: name.to_string(),
                signature: signature.to_string(),
                source_file: None,
                line: None,
            })
            .collect()
    }

    /// The scenes in order: the startup, then the frames.
    pub(crate) fn scenes(&self) -> Vec<Vec<ScriptRecord>> {
        let startup = self.startup.then(startup_scene);
        let frames = (1..=self.frames).map(|k| self.frame_scene(k));
        startup.into_iter().chain(frames).collect()
    }

    fn frame_scene(&self, k: u32) -> Vec<ScriptRecord> {
        let mut scene = Vec::new();
        let (mut wall, mut cpu) = (0, 0);
        let mut at = |method, action, wall, cpu| {
            scene.push(ScriptRecord {
                method,
                action,
                wall_us: wall,
                cpu_us: cpu,
            })
        };
        at(0, Action::Enter, 0, 0);
        for &(b, us) in &self.blocking {
            (wall, cpu) = (wall + 1, cpu + 1);
            at(1 + b, Action::Enter, wall, cpu);
            wall += us;
            at(1 + b, Action::Exit, wall, cpu);
        }
        let dur = self.frame_duration_us(k);
        at(0, Action::Exit, dur, cpu + (dur - wall));
        scene
    }
}

/// The startup phases, each its own duration, 1 µs apart.
fn startup_scene() -> Vec<ScriptRecord> {
    let first = 1 + BLOCKING_METHODS.len();
    let mut scene = Vec::new();
    let mut t = 0;
    let mut at = |i: usize, action, t| {
        scene.push(ScriptRecord {
            method: first + i,
            action,
            wall_us: t,
            cpu_us: t,
        })
    };
    let us = |i: usize| STARTUP_METHODS[i].3;
    // Binding the application holds the application's onCreate, 1 µs after its own start.
    at(0, Action::Enter, t);
    at(1, Action::Enter, t + 1);
    at(1, Action::Exit, t + 1 + us(1));
    t += us(0);
    at(0, Action::Exit, t);
    for i in 2..STARTUP_METHODS.len() {
        t += 1;
        at(i, Action::Enter, t);
        t += us(i);
        at(i, Action::Exit, t);
    }
    scene
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_hold_their_blocking_calls() {
        let script = MainScript {
            frames: 3,
            frame_us: 8000,
            jank_every: 3,
            jank_us: 30_000,
            blocking: vec![(0, 2000), (3, 500)],
            startup: false,
        };
        script.check().unwrap();
        let scenes = script.scenes();
        assert_eq!(scenes.len(), 3);
        let last = scenes[2].last().unwrap();
        assert_eq!((last.wall_us, last.cpu_us), (30_000, 30_000 - 2500));
        assert_eq!(scenes[0].len(), 6);
        assert_eq!(scenes[0][2].wall_us - scenes[0][1].wall_us, 2000);
        let short = MainScript {
            frame_us: 2502,
            ..script
        };
        assert!(short.check().is_err());
    }
}
