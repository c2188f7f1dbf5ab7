// Package costspec is the part of a spec's cost block that the command
// line and the server need without the rest of experiments (and so without
// Arrow): the GPU keys and their one resolution into a cost.GPUConfig
// (GPU.Config), the one set of GPU defaults (Default), the one check that
// a microbatch fits a GPU (OverMemory), and the memory guards of a
// generated table (GuardShape, the bytes a cell of each command).
//
// experiments.CostSpec carries the same keys and resolves them here, so
// that a spec and the command line's --model, --gpu, --link, ... price
// alike.
package costspec
