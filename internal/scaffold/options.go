package scaffold

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
)

// The values init writes when Options do not give one. The placeholders
// are valid, so that the catalog validates and builds at once, and plainly
// not real, so that a publish with them fails before it uploads.
const (
	DefaultOrigin      = "https://example.com"
	defaultPublisher   = "example.com"
	defaultDisplayName = "Example Corp"
	DefaultRegion      = "us-east-1"
	DefaultBranch      = "main"
	// PlaceholderBucket is the bucket of the production target when
	// Options give none: signpost publish refuses to upload to it.
	PlaceholderBucket = "replace-with-your-bucket"
	// 123456789012 is the account id of AWS's documentation: no such
	// role can be assumed.
	placeholderRoleARN = "arn:aws:iam::123456789012:role/replace-with-your-publish-role"
)

// The publish choices of Options.Publish.
const (
	PublishS3    = "s3"
	PublishPages = "pages"
	PublishNone  = "none"
	// PublishCloudflare deploys each site's Worker with wrangler.
	PublishCloudflare = "cloudflare"
	// PublishNetlify builds for Netlify and deploys with the Netlify CLI.
	PublishNetlify = "netlify"
)

// The names of the targets of signpost.yaml that the workflow publishes to.
const (
	targetS3    = "production"
	targetPages = "pages"
	// targetCloudflare is the cloudflare target of --publish cloudflare.
	targetCloudflare = "cloudflare"
	targetNetlify    = "netlify"
)

// Patterns of the values init writes into YAML, from the JSON Schemas of
// signpost.yaml (publisher, bucket, region) and from what AWS and Git accept.
var (
	publisherPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)
	bucketPattern    = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)
	regionPattern    = regexp.MustCompile(`^[a-z0-9-]+$`)
	roleARNPattern   = regexp.MustCompile(`^arn:aws(-[a-z]+)*:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]+$`)
	branchPattern    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9._-]+)*$`)
	// releasePattern matches the module versions go install can fetch: a
	// release, a pre-release or a pseudo-version, without build metadata
	// such as +dirty.
	releasePattern = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)
	// pseudoPattern matches the end of a pseudo-version, which names a
	// commit, not a release: a timestamp and 12 hex digits of the commit.
	pseudoPattern = regexp.MustCompile(`[.-][0-9]{14}-[0-9a-f]{12}$`)
	// commitPattern matches a full Git commit hash, which go install
	// fetches as a pseudo-version.
	commitPattern = regexp.MustCompile(`^[0-9a-f]{40}$`)
	// catalogPathPattern matches the catalog folder paths the workflow can
	// name as they are: no character that YAML or the shell reads
	// specially, and no part that a command could take for a flag.
	catalogPathPattern = regexp.MustCompile(`^[A-Za-z0-9._][A-Za-z0-9._-]*(/[A-Za-z0-9._][A-Za-z0-9._-]*)*$`)
)

// Options say what to write, and where.
type Options struct {
	// Dir is the catalog's folder, created if missing: the current folder
	// when "".
	Dir string
	// Origin is the https origin the site is served from, DefaultOrigin
	// (a placeholder) when "". Publisher is the organization's domain, the
	// host of Origin when "". DisplayName is the organization's name as
	// people write it, the publisher when "".
	Origin, Publisher, DisplayName string
	// Publish is what the workflow publishes to from Branch: PublishS3,
	// PublishPages or PublishNone ("" is PublishNone).
	Publish string
	// Bucket, Region and RoleARN are for PublishS3 only, nil when not
	// given: the S3 bucket of the production target (a placeholder when
	// nil or ""), its region (DefaultRegion when nil) and the IAM role the
	// workflow assumes to publish (a placeholder when nil or "").
	Bucket, Region, RoleARN *string
	// Branch is the default branch, such as DefaultBranch: pushes to it
	// are checked and published. When "", Prepare finds it: the default
	// branch of the remote origin, else the current branch, else
	// DefaultBranch.
	Branch string
	// Version is the version of signpost that runs init. When it is a
	// release, the workflow installs that release from its archive with
	// the signpost action; any other build (a development build, a
	// pseudo-version of a local commit) names no version that is sure to
	// exist, and the workflow installs FallbackVersion with go install.
	Version string
	// SignpostVersion, when not "", is the signpost the workflow installs
	// instead: a release such as v0.1.0, a pseudo-version or a full commit
	// hash, whatever go install can fetch; never latest. A release's
	// archive is installed with the action when Version is a release too,
	// else go install builds it.
	SignpostVersion string
}

// FallbackVersion is the release the workflow installs when the signpost
// that writes it is not a release and Options name no other: the first
// release, the one CHANGELOG.md dates.
const FallbackVersion = "v0.1.0"

// Field names one of the values of Options, as Options spells it.
type Field string

// The fields of Options that an *OptionError is about.
const (
	FieldOrigin      Field = "Origin"
	FieldPublisher   Field = "Publisher"
	FieldDisplayName Field = "DisplayName"
	FieldPublish     Field = "Publish"
	FieldBucket      Field = "Bucket"
	FieldRegion      Field = "Region"
	FieldRoleARN     Field = "RoleARN"
	FieldBranch      Field = "Branch"
	// FieldSignpostVersion is Options.SignpostVersion.
	FieldSignpostVersion Field = "SignpostVersion"
)

// OptionError says which value of Options init cannot use, and why.
type OptionError struct {
	// Field is the value at fault; Value is what it is, filled in from
	// the defaults where Options leave it out.
	Field Field
	Value string
	// Err is the cause, when there is one: spec.ParseOrigin's for Origin.
	Err error

	problem problem
}

// problem is what is wrong with the value of an *OptionError.
type problem int

const (
	controlChars   problem = iota // it holds control characters
	badOrigin                     // spec.ParseOrigin refuses it
	hostNotDomain                 // the host of Origin is no publisher: give Publisher
	badPublisher                  // not a domain name in lower case
	badBranch                     // not a branch name
	onlyForS3                     // given with a Publish other than PublishS3
	badBucket                     // not an S3 bucket name
	badRegion                     // not an AWS region
	badRoleARN                    // not an IAM role ARN
	unknownPublish                // not one of the publish choices
	badVersion                    // not a version go install can fetch
)

// Error words e with the names of Options' fields.
func (e *OptionError) Error() string {
	return e.Message(func(f Field) string { return string(f) })
}

// Unwrap returns the cause, if any.
func (e *OptionError) Unwrap() error { return e.Err }

// Message words e naming each field of Options with name, so that a
// command can name its flags instead.
func (e *OptionError) Message(name func(Field) string) string {
	field := name(e.Field)
	switch e.problem {
	case controlChars:
		return field + " must not contain control characters such as newlines"
	case badOrigin:
		return field + ": " + e.Err.Error()
	case hostNotDomain:
		return fmt.Sprintf("the host of %s, %q, is not a domain name to publish as: give %s, like example.com", name(FieldOrigin), e.Value, field)
	case badPublisher:
		return fmt.Sprintf("%s %q must be a domain name in lower case, like example.com", field, e.Value)
	case badBranch:
		return fmt.Sprintf("%s %q must be a branch name such as main, of letters, digits, '.', '_', '-' and '/'", field, e.Value)
	case onlyForS3:
		return fmt.Sprintf("%s is only for %s %s", field, name(FieldPublish), PublishS3)
	case badBucket:
		return fmt.Sprintf("%s %q is not an S3 bucket name: 3 to 63 lower-case letters, digits, '.' and '-'", field, e.Value)
	case badRegion:
		return fmt.Sprintf("%s %q is not an AWS region like us-east-1", field, e.Value)
	case badRoleARN:
		return fmt.Sprintf("%s %q is not an IAM role ARN like arn:aws:iam::111122223333:role/signpost-publish", field, e.Value)
	case unknownPublish:
		return fmt.Sprintf("%s %q must be %s, %s, %s, %s or %s", field, e.Value, PublishS3, PublishPages, PublishCloudflare, PublishNetlify, PublishNone)
	case badVersion:
		return fmt.Sprintf("%s %q is not a signpost version that go install can fetch: give a release such as %s, a pseudo-version or a full commit hash (never latest)", field, e.Value, FallbackVersion)
	}
	return fmt.Sprintf("%s %q cannot be used", field, e.Value)
}

// data checks o and fills in the defaults. Its errors are *OptionError.
func (o Options) data() (templateData, error) {
	optional := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	region := DefaultRegion
	if o.Region != nil {
		region = *o.Region
	}
	for _, v := range []struct {
		field Field
		value string
	}{
		{FieldOrigin, o.Origin}, {FieldPublisher, o.Publisher}, {FieldDisplayName, o.DisplayName},
		{FieldBucket, optional(o.Bucket)}, {FieldRegion, region}, {FieldRoleARN, optional(o.RoleARN)},
		{FieldBranch, o.Branch}, {FieldSignpostVersion, o.SignpostVersion},
	} {
		if strings.ContainsFunc(v.value, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return templateData{}, &OptionError{Field: v.field, Value: v.value, problem: controlChars}
		}
	}
	if o.SignpostVersion != "" && !fetchable(o.SignpostVersion) {
		return templateData{}, &OptionError{Field: FieldSignpostVersion, Value: o.SignpostVersion, problem: badVersion}
	}
	release, ref := installRef(o.Version, o.SignpostVersion)
	d := templateData{
		Release:     release,
		Ref:         ref,
		Origin:      o.Origin,
		Publisher:   o.Publisher,
		DisplayName: o.DisplayName,
		Publish:     o.Publish,
		Branch:      o.Branch,
	}
	switch d.Publish {
	case "":
		d.Publish = PublishNone
	case PublishS3, PublishPages, PublishCloudflare, PublishNetlify, PublishNone:
	default:
		return templateData{}, &OptionError{Field: FieldPublish, Value: d.Publish, problem: unknownPublish}
	}
	if d.Origin == "" {
		d.Origin = DefaultOrigin
	}
	host, err := checkOrigin(d.Origin)
	if err != nil {
		return templateData{}, &OptionError{Field: FieldOrigin, Value: d.Origin, Err: err, problem: badOrigin}
	}
	if d.Publisher == "" {
		d.Publisher = host
		if o.Origin == "" {
			d.Publisher = defaultPublisher
		}
	}
	if !publisherPattern.MatchString(d.Publisher) {
		if o.Publisher == "" {
			return templateData{}, &OptionError{Field: FieldPublisher, Value: d.Publisher, problem: hostNotDomain}
		}
		return templateData{}, &OptionError{Field: FieldPublisher, Value: d.Publisher, problem: badPublisher}
	}
	if d.DisplayName == "" {
		d.DisplayName = d.Publisher
		if o.Origin == "" && o.Publisher == "" {
			d.DisplayName = defaultDisplayName
		}
	}
	if !validBranch(d.Branch) {
		return templateData{}, &OptionError{Field: FieldBranch, Value: d.Branch, problem: badBranch}
	}
	labels := strings.Split(d.Publisher, ".")
	slices.Reverse(labels)
	d.ServerName = strings.Join(labels, ".") + "/notes"
	d.ServerURL = "https://mcp." + d.Publisher + "/notes"

	if d.Publish != PublishS3 {
		for _, v := range []struct {
			field Field
			value *string
		}{{FieldBucket, o.Bucket}, {FieldRegion, o.Region}, {FieldRoleARN, o.RoleARN}} {
			if v.value != nil {
				return templateData{}, &OptionError{Field: v.field, Value: *v.value, problem: onlyForS3}
			}
		}
	}
	switch d.Publish {
	case PublishS3:
		d.Target = targetS3
		d.Bucket = optional(o.Bucket)
		d.BucketSet = d.Bucket != ""
		if !d.BucketSet {
			d.Bucket = PlaceholderBucket
		}
		d.RoleARN = optional(o.RoleARN)
		d.RoleARNSet = d.RoleARN != ""
		if !d.RoleARNSet {
			d.RoleARN = placeholderRoleARN
		}
		d.Region = region
		if !bucketPattern.MatchString(d.Bucket) {
			return templateData{}, &OptionError{Field: FieldBucket, Value: d.Bucket, problem: badBucket}
		}
		if !regionPattern.MatchString(d.Region) {
			return templateData{}, &OptionError{Field: FieldRegion, Value: d.Region, problem: badRegion}
		}
		if !roleARNPattern.MatchString(d.RoleARN) {
			return templateData{}, &OptionError{Field: FieldRoleARN, Value: d.RoleARN, problem: badRoleARN}
		}
	case PublishPages:
		d.Target = targetPages
	case PublishCloudflare:
		d.Target = targetCloudflare
	case PublishNetlify:
		d.Target = targetNetlify
	}
	return d, nil
}

// validBranch reports whether the workflow can name branch as it is.
func validBranch(branch string) bool {
	return branchPattern.MatchString(branch) && !strings.Contains(branch, "..")
}

// checkOrigin checks origin as signpost.yaml will and returns its host in
// lower case.
func checkOrigin(origin string) (string, error) {
	u, err := spec.ParseOrigin(origin)
	if err != nil {
		return "", err
	}
	return strings.ToLower(u.Hostname()), nil
}

// isRelease reports whether version is a release or a pre-release of
// signpost, which has release archives: not a pseudo-version, no build
// metadata such as +dirty.
func isRelease(version string) bool {
	return releasePattern.MatchString(version) && !pseudoPattern.MatchString(version)
}

// fetchable reports whether go install can fetch signpost at version: a
// release, a pre-release or a pseudo-version without build metadata, or a
// full commit hash. Never latest, nor a branch, which move.
func fetchable(version string) bool {
	return releasePattern.MatchString(version) || commitPattern.MatchString(version)
}

// installRef says how the workflow installs signpost, for the signpost of
// version that runs init and the version chosen ("" for none): ref is the
// version the workflow installs, chosen when given, else version when it
// is a release, else FallbackVersion; release is the running release
// whose signpost action installs ref from its archive, "" when go install
// builds it instead (the running signpost or ref is no release). Never
// latest.
func installRef(version, chosen string) (release, ref string) {
	ref = chosen
	switch {
	case ref != "":
	case isRelease(version):
		ref = version
	default:
		ref = FallbackVersion
	}
	if isRelease(version) && isRelease(ref) {
		return version, ref
	}
	return "", ref
}
