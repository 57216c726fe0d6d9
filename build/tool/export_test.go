package tool

// The encoders' fast paths and their references, for the tests that hold
// one to the other on the example catalog, which they load with package
// build.
var (
	AppendDescriptorFields        = appendDescriptorFields
	AppendCompactDescriptorFields = appendCompactDescriptorFields
	CatalogueEntryParts           = catalogueEntryParts
	CatalogueMembers              = catalogueMembers
	AppendCanonicalDescriptor     = appendCanonicalDescriptor
)
