//! Devices ([`Device`]).
use crate::error::{Code, Error, Result};
use mxc_sys as sys;

/// Where an array lives: MXNet's `mx.cpu(i)`, `mx.gpu(i)`, `mx.cpu_pinned(i)`. `Device::default()`
/// is `cpu(0)`. A GPU device on a build without GPUs gives `Unavailable` errors when used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    /// Host memory, `cpu(id)`.
    Cpu(i32),
    /// `gpu(id)`.
    Gpu(i32),
    /// Page-locked host memory, `cpu_pinned(id)`.
    CpuPinned(i32),
}

impl Default for Device {
    fn default() -> Device {
        Device::CPU
    }
}

impl Device {
    /// `cpu(0)`.
    pub const CPU: Device = Device::Cpu(0);

    /// The C ABI's struct (`mxc_device`).
    pub fn to_raw(self) -> sys::mxc_device {
        let (t, id) = match self {
            Device::Cpu(i) => (sys::MXC_DEVICE_CPU, i),
            Device::Gpu(i) => (sys::MXC_DEVICE_GPU, i),
            Device::CpuPinned(i) => (sys::MXC_DEVICE_CPU_PINNED, i),
        };
        sys::mxc_device { r#type: t, id }
    }

    /// The device of a C ABI struct. Errors: `InvalidArgument` for an unknown type.
    pub fn from_raw(d: sys::mxc_device) -> Result<Device> {
        match d.r#type {
            sys::MXC_DEVICE_CPU => Ok(Device::Cpu(d.id)),
            sys::MXC_DEVICE_GPU => Ok(Device::Gpu(d.id)),
            sys::MXC_DEVICE_CPU_PINNED => Ok(Device::CpuPinned(d.id)),
            t => Err(Error::new(
                Code::InvalidArgument,
                format!("unknown device type {t}"),
            )),
        }
    }

    /// MXNet's string form ("cpu(0)", "gpu(1)", "cpu_pinned(0)"), as the `ctx` attribute of
    /// creation operators takes it.
    pub fn attr_string(self) -> String {
        match self {
            Device::Cpu(i) => format!("cpu({i})"),
            Device::Gpu(i) => format!("gpu({i})"),
            Device::CpuPinned(i) => format!("cpu_pinned({i})"),
        }
    }
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.attr_string())
    }
}
