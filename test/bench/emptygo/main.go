// Command emptygo does nothing. `make bench` builds it for js/wasm as the
// gateway is built, to show how much of the gateway's wasm is Go's runtime.
package main

func main() {}
