#!/usr/bin/env bash
# S8: the binding's per-call overhead over the C ABI. Runs the S8 benchmarks COUNT times (default
# 15) and prints each benchmark's median wall ns/op and CPU ns/op (process CPU time per call, the
# fair measure on a loaded machine: see s8_overhead_test.go) and, per operator, binding minus
# direct-C (the target is <= 1000 ns). Names the CPU and the load. Extra arguments go to go test (e.g. -benchtime 50000x).
#   bindings/go/bench_s8.sh [COUNT] [go test flags...]
set -euo pipefail
cd "$(dirname "$0")"
count="${1:-15}"
shift || true
echo "CPU: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) CPUs, flags:$(grep -o -w -m1 -E 'avx2|avx512f' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
GOPROXY=off go test -count=1 -run '^$' -bench S8 -benchtime 20000x -count "$count" "$@" . |
  awk '
    /^BenchmarkS8/ {
      name = $1; sub(/-[0-9]+$/, "", name)
      v[name] = v[name] " " $3
      for (i = 4; i < NF; i++) {
        if ($(i + 1) == "cpu-ns/op") c[name] = c[name] " " $i
        if ($(i + 1) == "thread-cpu-ns/op") tc[name] = tc[name] " " $i
      }
    }
    function median(s,   a, n, i, j, t) {
      n = split(s, a, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
      for (name in v) { m[name] = median(v[name]); mc[name] = median(c[name]); mt[name] = median(tc[name]) }
      printf "%-36s %10s %10s %12s   (medians)\n", "", "wall ns", "CPU ns", "thread CPU ns"
      for (name in m) printf "%-36s %10.0f %10.0f %12.0f\n", name, m[name], mc[name], mt[name]
      for (name in m) {
        if (name ~ /\/direct-C$/) continue
        base = name; sub(/\/[^\/]*$/, "/direct-C", base)
        if (base in m) printf "added per call: %-36s wall %6.0f ns, CPU %6.0f ns, thread CPU %6.0f ns\n", name, m[name] - m[base], mc[name] - mc[base], mt[name] - mt[base]
      }
    }'
