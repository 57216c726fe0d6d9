// Package conformance holds two builds of the same catalog to each other: two
// output folders produced independently (by two runs of signpost, or by
// signpost and an external emitter) must be the same site, and each must be
// one a client can trust.
//
// Compare rejects, naming each finding with its file or route and what
// differs: unsupported tool catalogue versions, dangling or external schema
// references, documents that fail their schemas, safety metadata that
// contradicts itself (annotations not derived from the safety fields, exec
// outside host extensions), catalogue tool names whose descriptor reference
// differs between the builds, unsafe or colliding output paths, and any
// difference of bytes or ordering.
//
// Read takes a build from its folder: the route table and exactly the objects
// it names, nothing else. Compare reads nothing at all: no files, no network,
// no clock, no environment; its result depends on its two inputs alone.
package conformance
