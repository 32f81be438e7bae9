package catalog

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/doris"
)

// Resource URI families. Each names one Doris object; segments are
// path-escaped so any identifier round-trips.
var resourceKinds = []struct {
	kind, title, description string
}{
	{"table", "Doris table", "Columns, types, keys and comments of a table."},
	{"view", "Doris view", "Columns and comments of a view."},
	{"stats", "Doris table statistics", "Row count, data and index sizes of a table."},
}

// ResourceTemplates lists the URI templates of the resource families.
func (s *Surface) ResourceTemplates(ctx context.Context, id auth.Identity) ([]ResourceTemplate, error) {
	out := make([]ResourceTemplate, 0, len(resourceKinds))
	for _, k := range resourceKinds {
		out = append(out, ResourceTemplate{
			URITemplate: "doris://" + k.kind + "/{catalog}/{database}/{" + map[bool]string{true: "view", false: "table"}[k.kind == "view"] + "}",
			Name:        k.kind,
			Title:       k.title,
			Description: k.description,
			MimeType:    "application/json",
		})
	}
	slices.SortFunc(out, func(a, b ResourceTemplate) int { return strings.Compare(a.URITemplate, b.URITemplate) })
	return out, nil
}

// Resources lists the tables and views the caller can see as resources,
// at most MaxResources, sorted by URI. A Doris failure is an error, never
// an empty list.
func (s *Surface) Resources(ctx context.Context, id auth.Identity) ([]Resource, error) {
	objs, err := s.rt.Objects(ctx, id, s.cfg.MaxResources)
	if err != nil {
		return nil, &ListError{Category: listCategory(err), Err: err}
	}
	out := make([]Resource, 0, len(objs))
	for _, o := range objs {
		kind := "table"
		if o.Kind == "view" {
			kind = "view"
		}
		out = append(out, Resource{
			URI:         resourceURI(kind, o.Catalog, o.Database, o.Name),
			Name:        o.Database + "." + o.Name,
			Title:       o.Catalog + "." + o.Database + "." + o.Name,
			Description: "Schema and comments of the " + kind + " " + o.Database + "." + o.Name,
			MimeType:    "application/json",
		})
	}
	slices.SortFunc(out, func(a, b Resource) int { return strings.Compare(a.URI, b.URI) })
	return out, nil
}

// ReadResource reads one doris:// resource. Unknown families, malformed
// URIs and absent objects are all ErrResourceNotFound.
func (s *Surface) ReadResource(ctx context.Context, id auth.Identity, uri string) (*ResourceContents, error) {
	kind, cat, db, name, ok := parseResourceURI(uri)
	if !ok {
		return nil, ErrResourceNotFound
	}
	b, err := s.rt.ReadObject(ctx, id, kind, cat, db, name)
	switch {
	case errors.Is(err, doris.ErrNotFound):
		return nil, ErrResourceNotFound
	case err != nil:
		return nil, &ListError{Category: listCategory(err), Err: err}
	}
	return &ResourceContents{URI: uri, MimeType: "application/json", Text: string(b)}, nil
}

func resourceURI(kind, catalog, database, name string) string {
	return "doris://" + kind + "/" + url.PathEscape(catalog) + "/" + url.PathEscape(database) + "/" + url.PathEscape(name)
}

// parseResourceURI splits doris://<kind>/<catalog>/<database>/<name>.
func parseResourceURI(uri string) (kind, catalog, database, name string, ok bool) {
	rest, found := strings.CutPrefix(uri, "doris://")
	if !found || len(uri) > 2048 {
		return "", "", "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 4 {
		return "", "", "", "", false
	}
	known := false
	for _, k := range resourceKinds {
		known = known || k.kind == parts[0]
	}
	if !known {
		return "", "", "", "", false
	}
	var seg [3]string
	for i, p := range parts[1:] {
		v, err := url.PathUnescape(p)
		if err != nil || v == "" || len(v) > 256 {
			return "", "", "", "", false
		}
		seg[i] = v
	}
	return parts[0], seg[0], seg[1], seg[2], true
}

// listCategory classifies a runtime failure for listErrorCategory.
func listCategory(err error) string {
	var de *doris.Error
	if errors.As(err, &de) {
		switch {
		case de.Status == 403:
			return "permission_denied"
		case de.Retryable || de.Status >= 502:
			return "backend_unavailable"
		}
	}
	return "internal_error"
}
