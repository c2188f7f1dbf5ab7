package experiments

import "github.com/pipelab/pipelab/optim"

// methodOf is the descriptor of the method called name (optim's table
// of methods): its traits, not its name, decide what a run does. A name
// no method has, which validation refuses first, gets the zero
// descriptor, which has no trait.
func methodOf(name string) optim.MethodDesc {
	d, _ := optim.LookupMethod(name)
	return d
}
