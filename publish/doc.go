// Package publish puts a built site on S3 and keeps its CloudFront
// distribution current, in an order that never leaves a list naming a
// missing document.
//
// [Run] is the whole publish of a catalog folder: it reads signpost.yaml
// and starts listing the target's bucket ([Prefetch]) while the catalog
// loads, returns at once when the bucket shows nothing needs building
// ([Unchanged]), and otherwise compiles the sites and publishes them
// ([Sites]). A command gives it the catalog, the target and its overrides,
// the limits, and where to show the plan and the progress ([RunOptions]),
// and words its typed errors.
//
// [Sites] publishes built sites: it plans every site, then carries the
// plan out. The plan compares each site with its objects in the bucket (one read of
// a manifest, and a listing, split into ranges listed at the same time when
// the manifest names thousands of keys) and, with a distribution, with the live code and
// key value store association of its CloudFront Functions and the paths an
// earlier publish left to invalidate. It changes nothing, so that a dry run is the plan alone.
// More deletes than [Options.MaxDeletes] in any site refuse the whole
// publish before anything changes, with a [*DeleteLimitError]. Each
// manifest records the digest of what its site was built from
// ([Options.Inputs]) and of the objects the publish left, so that
// [Unchanged] can tell from the bucket alone, before anything is built,
// that a publish from the same inputs has nothing to do.
//
// Carrying a site's plan out keeps this order, so that at no moment does a
// list or catalog, in the bucket or in a cache, name a document that is not
// there, or a route the distribution does not serve:
//
//  1. the paths to invalidate are recorded in the bucket
//     ([PendingInvalidationName]), so that a publish that fails half-way
//     leaves them to the next one;
//  2. every document is uploaded, then every precompressed variant the
//     bucket does not have yet (of a list or catalog too: no route leads
//     to it before the next step), but the new variant of a discovery
//     catalog or of the registry's list whose document changes too, which
//     goes up with it in step 4, since it names lists not yet there;
//  3. the CloudFront Functions are switched over (created or updated, then
//     published): the new routes, and the variants they choose, lead to
//     objects that exist;
//  4. the lists and catalogs that name the documents are uploaded, each
//     with the variants of it that the bucket has (changed together);
//  5. the manifest is uploaded, still naming the objects about to be
//     deleted, so that a publish stopped before the deletes leaves their
//     routes to the next one to invalidate;
//  6. when there are deletes, the changed paths (the lists among them) are
//     invalidated and the invalidation waited for, at most
//     [Options.InvalidationTimeout], so that no cache serves an old list
//     naming a document about to go;
//  7. the deletes are made, bounded by [Options.MaxDeletes], then the
//     manifest is uploaded without them;
//  8. the rest is invalidated, and the pending paths cleared.
//
// The S3 and CloudFront clients are the small interfaces [S3API] and
// [CloudFrontAPI], which the SDK's clients satisfy, and so do test servers
// and fakes. Errors name what failed, never a command's flags: a refusal
// is a [*DeleteLimitError], a wait that ran out an
// [*InvalidationTimeoutError], and an AWS error with a known cause an
// [*AWSError], so that a command can say which of its flags to change.
package publish
