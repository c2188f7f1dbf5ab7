package sim

// eventKind says what ends when an event fires.
type eventKind uint8

const (
	evCompute  eventKind = iota // a compute action ends; id is its node
	evTransfer                  // a transfer arrives; id is the transfer
	evWake                      // a rank stops waiting as planned; id is the rank
)

// event is one entry of the event queue.
type event struct {
	time float64
	seq  uint64
	kind eventKind
	id   int32
}

// before orders events by time, then by the order they were scheduled in:
// ties go first in, first out, so runs are reproducible.
func (e event) before(f event) bool {
	if e.time != f.time {
		return e.time < f.time
	}
	return e.seq < f.seq
}

// eventQueue is a binary min-heap of events. No two events share a
// sequence number, so the order in which they leave does not depend on the
// heap's layout. It is written out rather than built on container/heap,
// whose interface calls were a noticeable share of a simulation.
type eventQueue struct {
	heap []event
	seq  uint64
}

func (q *eventQueue) len() int { return len(q.heap) }

// earliest returns the time of the next event; the queue must not be
// empty.
func (q *eventQueue) earliest() float64 { return q.heap[0].time }

// schedule adds an event of the given kind at time t.
func (q *eventQueue) schedule(t float64, kind eventKind, id int32) {
	q.seq++
	q.heap = append(q.heap, event{time: t, seq: q.seq, kind: kind, id: id})
	q.up(len(q.heap) - 1)
}

// pop removes and returns the earliest event; the queue must not be empty.
func (q *eventQueue) pop() event {
	h := q.heap
	e := h[0]
	last := len(h) - 1
	h[0] = h[last]
	q.heap = h[:last]
	q.down(0)
	return e
}

func (q *eventQueue) up(i int) {
	h := q.heap
	for i > 0 {
		parent := (i - 1) / 2
		if !h[i].before(h[parent]) {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (q *eventQueue) down(i int) {
	h := q.heap
	for {
		first := i
		if l := 2*i + 1; l < len(h) && h[l].before(h[first]) {
			first = l
		}
		if r := 2*i + 2; r < len(h) && h[r].before(h[first]) {
			first = r
		}
		if first == i {
			return
		}
		h[i], h[first] = h[first], h[i]
		i = first
	}
}
