//go:build js && wasm

package main

import (
	"context"
	"net/http"
	"sync"
	"syscall/js"

	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/internal/memhttp"
)

// MemoryLimit is the size guards' limit in the browser: 3/4 of the 4 GiB
// a WebAssembly memory (wasm32) can grow to at most. The library's default
// reads the machine's memory from /proc/meminfo, which the worker does not
// have (it would fall back to 8 GiB, more than the worker can hold).
const MemoryLimit = 3 << 30

func main() {
	budget.SetLimit(MemoryLimit)
	b := &bridge{handler: newHandler(), cancels: map[int]context.CancelFunc{}}
	js.Global().Set("pipelabServe", js.FuncOf(b.serve))
	js.Global().Set("pipelabCancel", js.FuncOf(b.cancel))
	js.Global().Call("pipelabReady")
	select {}
}

// bridge serves the worker's requests, each in a goroutine of its own
// with a context that pipelabCancel ends.
type bridge struct {
	handler http.Handler
	mu      sync.Mutex
	cancels map[int]context.CancelFunc
}

// serve is pipelabServe(id, method, path, body): it returns at once, the
// answer following through the worker's callbacks.
func (b *bridge) serve(_ js.Value, args []js.Value) any {
	id, method, path, body := args[0].Int(), args[1].String(), args[2].String(), args[3].String()
	ctx, cancel := context.WithCancel(context.Background())
	b.mu.Lock()
	b.cancels[id] = cancel
	b.mu.Unlock()
	go func() {
		defer b.forget(id)
		memhttp.Serve(ctx, b.handler, method, path, []byte(body), sink{id})
		js.Global().Call("pipelabEnd", id)
	}()
	return nil
}

// cancel is pipelabCancel(id): the request's context ends, as when a page
// served by "pipelab serve" closes its request.
func (b *bridge) cancel(_ js.Value, args []js.Value) any {
	b.mu.Lock()
	c := b.cancels[args[0].Int()]
	b.mu.Unlock()
	if c != nil {
		c()
	}
	return nil
}

func (b *bridge) forget(id int) {
	b.mu.Lock()
	c := b.cancels[id]
	delete(b.cancels, id)
	b.mu.Unlock()
	if c != nil {
		c()
	}
}

// sink hands an answer to the worker.
type sink struct{ id int }

func (s sink) Start(status int, header http.Header) {
	h := map[string]any{}
	for k := range header {
		h[k] = header.Get(k)
	}
	js.Global().Call("pipelabStart", s.id, status, h)
}

func (s sink) Chunk(p []byte) {
	a := js.Global().Get("Uint8Array").New(len(p))
	js.CopyBytesToJS(a, p)
	js.Global().Call("pipelabChunk", s.id, a)
}
