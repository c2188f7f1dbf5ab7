// Package budget holds pipelab's one memory limit and the check that
// refuses, before anything is allocated, work whose estimated size exceeds
// it. The limit is --max-memory (every command has it, through SetLimit),
// else the environment variable PIPELAB_MAX_MEMORY, else three quarters of
// the memory this process may use: the smaller of /proc/meminfo's
// MemAvailable and a cgroup's memory.max (a container's or a Slurm job's
// limit). The estimators live beside what they size
// (pipeline.CellBound, for instance); Check compares their estimate with
// the limit and words the refusal.
package budget
