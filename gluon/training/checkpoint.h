// Training checkpoints for exact resume: one file holding a net's parameters, its Trainer's
// states (optimizer states, update counts, LR-scheduler state), the random generators' states
// and a caller's JSON (epoch/batch position, run configuration), written crash-safely.
//
//   MX_RETURN_IF_ERROR(gluon::save_checkpoint(dir + "/train-state.params", *net, trainer,
//                                             {.meta = R"({"epoch": 3, "batch": 120})"}));
//   ...  // a new process: the same net and Trainer, built and initialized as before
//   MX_ASSIGN_OR_RETURN(std::string meta,
//                       gluon::load_checkpoint(dir + "/train-state.params", *net, trainer));
//
// File: MXNet's NDArray dict format (docs/formats.md §2.1, readable by mx.nd.load):
//   "param:<structured name>"  every parameter's data (first device), Block::save_parameters'
//                              names ("features.0.weight")
//   "trainer:<record>"         the records of Trainer::states_records (trainer.h)
//   "__checkpoint__"           a uint8 array holding UTF-8 JSON:
//       {"format": "mxnet-cc-checkpoint", "version": 1,
//        "rng": {"cpu(0)": "<std::mt19937_64 state as operator<< writes it>", ...},
//        "meta": <the caller's JSON object>}
//
// Crash safety (a process killed at any moment, or a power cut after the call returned, leaves
// either the previous file or the new one, never a mix): the bytes go to "<path>.tmp-XXXXXX" in
// the same directory, which is fsync'ed and closed, renamed over `path` (atomic on POSIX file
// systems), and then the directory itself is fsync'ed so that the rename is durable. A killed
// writer may leave a "<path>.tmp-*" file behind; remove_stale_temporaries() deletes them.
//
// Test hook (not for production): when the environment variable MXNET_CHECKPOINT_TEST_PAUSE_MS
// is a positive number N, the writer sleeps N ms after writing half of the bytes and N ms
// before the rename, so that a test can kill the process inside a checkpoint write.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/device.h"
#include "gluon/block.h"
#include "gluon/training/trainer.h"

namespace mxnet::gluon {

struct CheckpointOptions {
  // Devices whose random generators (ndarray/random.h; the current RuntimeContext's set) are
  // saved; the generators of other devices restart from the seed after a resume.
  std::vector<Device> rng_devices = {cpu()};
  // The caller's data (a JSON object; position, configuration, running metrics), as JSON text.
  std::string meta = "{}";
};

// Writes the checkpoint (format and crash safety above). Errors: uninitialized parameters
// (kFailedPrecondition naming the parameter), I/O errors with the path (absl codes from errno),
// `meta` not a JSON object (kInvalidArgument).
absl::Status save_checkpoint(const std::string& path, const Block& net, const Trainer& trainer,
                             const CheckpointOptions& options = {});

// Restores a checkpoint written by save_checkpoint into `net` (its parameters must have the
// saved names and shapes; data goes to the devices the net's parameters are on), `trainer`
// (same optimizer class) and the saved random generators; returns the caller's `meta` JSON
// text. Errors: kNotFound for a missing file, kInvalidArgument naming the file for anything that
// is not a complete checkpoint of this format (missing records, wrong names or shapes), kDataLoss
// for a truncated file. On error nothing of `net`, `trainer` or the generators is changed.
absl::StatusOr<std::string> load_checkpoint(const std::string& path, Block& net, Trainer& trainer);

// The caller's `meta` JSON text of a checkpoint, without restoring anything (e.g. to rebuild the
// net and Trainer a checkpoint needs). Errors as load_checkpoint's for the file itself.
absl::StatusOr<std::string> read_checkpoint_meta(const std::string& path);

// The state of the random generator of `device` in the current RuntimeContext's generator set
// (std::mt19937_64's text form), and its restoration. set_random_state throws
// mxnet::Error(kInvalidArgument) for text that is not such a state.
std::string random_state(Device device);
void set_random_state(Device device, const std::string& state);

// Writes `bytes` to `path` crash-safely (temporary file, fsync, rename, directory fsync; see the
// top of this file, including the test hook). I/O errors name the path.
absl::Status write_file_durably(const std::string& path, std::string_view bytes);

// Deletes "<path>.tmp-*" files that a killed writer left next to `path`; returns how many.
int remove_stale_temporaries(const std::string& path);

}  // namespace mxnet::gluon
