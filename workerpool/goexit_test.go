package workerpool

import "runtime"

func runtimeGoexit() { runtime.Goexit() }
