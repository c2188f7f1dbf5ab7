// Package tune searches for the fastest way to run a model through a
// pipeline of GPUs: how its layers are cut into stages, how the stages are
// placed on the ranks (loop or V, as the schedule family implies, or
// Chimera's two pipelines, which run the same P parts in opposite
// directions so that each rank holds two replicas), which schedule family
// runs them and with how many microbatches, within a memory limit per
// rank.
//
// Layers are priced by the GPU timing model of package sim, so a
// heterogeneous model (a vision encoder in front of a decoder, MoE layers,
// a large vocabulary head) is a list of per-layer costs rather than a count
// of identical layers. Every candidate is scored by simulating its table
// (sim.Simulate): time per sample, the makespan over the samples of one
// iteration; a candidate whose lower bound on peak memory already exceeds
// the limit is dropped without simulating. The result is set against a Megatron-LM baseline that splits
// the layers evenly by count.
//
// TuneCluster goes one level up: it splits a number of GPUs into
// tensor-parallel groups inside a node, pipeline ranks and data-parallel
// replicas, tunes each split with Tune at the microbatch count a fixed
// batch leaves, and keeps the shortest whole step (cost.GPUModel.Iteration).
//
// ZBAuto builds the Zero Bubble paper's automatic schedule (zb-auto) from
// plain per-stage times (StageTimes: T_F, T_B, T_W and the transfer time)
// within a limit on the activations a rank holds; the tuner builds it for
// every partition it tries, from that partition's times, with the largest
// limit its memory leaves (docs/zb-auto.md).
package tune
