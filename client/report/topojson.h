/* The topology member of a report, within a byte budget: what does not fit
 * is summarised in each hierarchy's "cut" instead of failing. */
#ifndef CGFB_TOPOJSON_H
#define CGFB_TOPOJSON_H

#include <stddef.h>

#include <json-c/json.h>

#include "snapshot/analysis.h"
#include "snapshot/topology.h"

/* One cgroup as a report shows it. */
json_object *cgfb_node_json(const struct cgfb_hier *h, size_t i);

/* {"max_nodes", "max_bytes", "hierarchies"} where the nodes arrays together
 * take at most budget bytes of canonical JSON. Nodes the analysis names
 * (and their ancestors) go first, then the others in pre-order, shared
 * fairly between hierarchies. budget SIZE_MAX lists every walked node.
 * Returns NULL on ENOMEM. */
json_object *cgfb_topology_json(const struct cgfb_topology *t, const struct cgfb_analysis *an,
				size_t max_bytes, size_t budget);

#endif
