//! The adb client: which program (`--adb PATH`, else `$ADB`, else `adb` on PATH), one device
//! (`-s SERIAL`), commands run to their end with their output collected.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

use super::error::RecordError;

/// The adb client, talking to one device once [`Adb::select`] chose it.
#[derive(Clone, Debug)]
pub struct Adb {
    program: PathBuf,
    serial: Option<String>,
}

/// A line of `adb devices -l`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    pub serial: String,
    /// `device` when usable; `unauthorized`, `offline`, … otherwise.
    pub state: String,
    /// The `model:…` field when adb gives one, else the rest of the line.
    pub description: String,
}

impl Adb {
    /// The client at `explicit`, else `$ADB`, else `adb` found on PATH.
    pub fn find(explicit: Option<PathBuf>) -> Adb {
        let program = explicit
            .or_else(|| {
                std::env::var_os("ADB")
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
            })
            .unwrap_or_else(|| PathBuf::from("adb"));
        Adb::at(program)
    }

    /// The client at `program`.
    pub fn at(program: PathBuf) -> Adb {
        Adb {
            program,
            serial: None,
        }
    }

    /// The adb program run.
    pub fn program(&self) -> &std::path::Path {
        &self.program
    }

    /// The device this client talks to, once chosen.
    pub fn serial(&self) -> Option<&str> {
        self.serial.as_deref()
    }

    /// This client bound to the device `serial` as listed (a device chosen from
    /// [`Adb::devices`]; [`Adb::select`] checks it first).
    pub fn on_device(mut self, serial: &str) -> Adb {
        self.serial = Some(serial.to_string());
        self
    }

    /// `adb [-s SERIAL] ARGS`, not started yet.
    fn command(&self, args: &[&str]) -> Command {
        let mut full: Vec<OsString> = Vec::new();
        if let Some(s) = &self.serial {
            full.extend(["-s".into(), s.into()]);
        }
        full.extend(args.iter().map(OsString::from));
        let mut command = Command::new(&self.program);
        command.args(&full);
        command
    }

    fn missing(&self, source: std::io::Error) -> RecordError {
        RecordError::AdbMissing {
            program: self.program.clone(),
            source,
        }
    }

    /// Runs `adb [-s SERIAL] ARGS` to its end.
    pub fn run(&self, args: &[&str]) -> Result<Output, RecordError> {
        self.command(args).output().map_err(|e| self.missing(e))
    }

    /// Starts `adb shell COMMAND` without waiting for it (stdout to `output`, stderr piped).
    pub fn spawn_shell(&self, command: &str, output: Stdio) -> Result<Child, RecordError> {
        self.command(&["shell", command])
            .stdin(Stdio::null())
            .stdout(output)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| self.missing(e))
    }

    /// `adb shell COMMAND`: its stdout and stderr together (device tools print errors on
    /// either), and whether it succeeded.
    pub fn shell(&self, command: &str) -> Result<(bool, String), RecordError> {
        let out = self.run(&["shell", command])?;
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        Ok((out.status.success(), text))
    }

    /// The devices `adb devices -l` lists.
    pub fn devices(&self) -> Result<Vec<Device>, RecordError> {
        let out = self.run(&["devices", "-l"])?;
        if !out.status.success() {
            return Err(RecordError::Failed {
                command: "adb devices -l".into(),
                output: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(parse_devices(&String::from_utf8_lossy(&out.stdout)))
    }

    /// The third-party packages installed on the device (`pm list packages -3`), sorted.
    pub fn packages(&self) -> Result<Vec<String>, RecordError> {
        let command = "pm list packages -3";
        match self.shell(command)? {
            (true, out) => Ok(parse_packages(&out)),
            (false, output) => Err(RecordError::Failed {
                command: format!("adb shell {command}"),
                output: output.trim().to_string(),
            }),
        }
    }

    /// This client bound to the device `serial`, or to the only usable device when `serial`
    /// is None.
    pub fn select(mut self, serial: Option<&str>) -> Result<Adb, RecordError> {
        let devices = self.devices()?;
        let usable: Vec<&Device> = devices.iter().filter(|d| d.state == "device").collect();
        let chosen = match serial {
            Some(s) => match devices.iter().find(|d| d.serial == s) {
                Some(d) if d.state == "device" => d,
                Some(d) => {
                    return Err(RecordError::DeviceUnusable {
                        serial: d.serial.clone(),
                        state: d.state.clone(),
                    });
                }
                None => return Err(RecordError::NoSuchDevice(s.to_string())),
            },
            None => match usable.as_slice() {
                [] => {
                    return Err(RecordError::NoDevice {
                        unusable: devices
                            .iter()
                            .map(|d| format!("{} ({})", d.serial, d.state))
                            .collect(),
                    });
                }
                [only] => only,
                several => {
                    return Err(RecordError::SeveralDevices(
                        several
                            .iter()
                            .map(|d| format!("{} {}", d.serial, d.description))
                            .collect(),
                    ));
                }
            },
        };
        self.serial = Some(chosen.serial.clone());
        Ok(self)
    }
}

/// The device lines of `adb devices -l` (after its `List of devices attached` line).
pub fn parse_devices(text: &str) -> Vec<Device> {
    text.lines()
        .filter(|l| !l.starts_with("List of devices") && !l.starts_with('*'))
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let serial = words.next()?.to_string();
            let state = words.next()?.to_string();
            let rest: Vec<&str> = words.collect();
            let description = rest
                .iter()
                .find_map(|w| w.strip_prefix("model:"))
                .map_or_else(|| rest.join(" "), str::to_string);
            Some(Device {
                serial,
                state,
                description,
            })
        })
        .collect()
}

/// The package names of `pm list packages` (`package:NAME` lines), sorted.
pub fn parse_packages(text: &str) -> Vec<String> {
    let mut names: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("package:"))
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_devices_l() {
        let text = "List of devices attached\n\
            emulator-5554          device product:sdk_gphone64 model:Pixel_7 device:emu64 transport_id:1\n\
            R58N12345              unauthorized usb:1-1 transport_id:2\n\n";
        let d = parse_devices(text);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].serial, "emulator-5554");
        assert_eq!(d[0].state, "device");
        assert_eq!(d[0].description, "Pixel_7");
        assert_eq!(d[1].state, "unauthorized");
    }

    #[test]
    fn parses_pm_list_packages() {
        let text = "package:com.example.b\r\npackage:com.example.a\n\nWARNING: linker\n";
        assert_eq!(parse_packages(text), ["com.example.a", "com.example.b"]);
    }
}
