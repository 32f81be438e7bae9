package sim

import (
	"strconv"
	"time"
)

// The BE /metrics families that follow the backend's activity: memory
// (the process figure, jemalloc and the memory trackers by type), the
// file cache and the LRU caches, compaction, and rows scanned.

func (s *Server) writeBEActivityMetrics(p *promWriter) {
	a := s.act.snapshot(time.Now())

	p.metric("doris_be_memory_allocated_bytes", "gauge", "", nil, a.memory)
	p.metric("doris_be_memory_jemalloc_allocated_bytes", "gauge", "", nil, a.memory-268435456)
	p.metric("doris_be_memory_jemalloc_active_bytes", "gauge", "", nil, a.memory-201326592)
	p.metric("doris_be_memory_jemalloc_metadata_bytes", "gauge", "", nil, 50331648)
	p.metric("doris_be_memory_jemalloc_resident_bytes", "gauge", "", nil, a.memory-134217728)
	p.metric("doris_be_memory_jemalloc_mapped_bytes", "gauge", "", nil, a.memory)
	p.metric("doris_be_memory_jemalloc_retained_bytes", "gauge", "", nil, 402653184)
	p.metric("doris_be_memory_jemalloc_tcache_bytes", "gauge", "", nil, 8388608)
	for _, n := range []string{"pgpgin", "pgpgout", "pswpin", "pswpout"} {
		p.metric("doris_be_memory_"+n, "gauge", "", nil, 0)
	}
	// Memory trackers by type (MemTrackerLimiter): what each part holds now.
	for _, t := range []struct {
		typ string
		v   int64
	}{{"global", a.globalMem}, {"query", a.queryMem}, {"load", 0}, {"compaction", a.compactionMem},
		{"schema_change", 0}, {"other", a.memory - a.globalMem - a.queryMem - a.compactionMem}} {
		p.metric("doris_be_mem_consumption", "gauge", "", lbl("type", t.typ), t.v)
	}

	for _, kv := range fileCacheMetrics(a) {
		p.metric("doris_be_file_cache_"+kv.name, "gauge", "", lbl("path", fileCachePath), kv.value)
	}
	p.metric("doris_be_file_cache_removed_elements", "gauge", "", lbl("path", fileCachePath), 0)
	p.metric("doris_be_file_cache_segment_reader_cache_size", "gauge", "", lbl("path", fileCachePath), a.cacheElements)
	// LRU caches: the page caches fill with what was read.
	lookups := a.hits + a.misses
	for _, c := range []struct {
		name      string
		capacity  int64
		usage     int64
		hitsShare int64
	}{{"DataPageCache", 2147483648, a.cacheBytes / 8, 1}, {"IndexPageCache", 536870912, a.cacheBytes / 64, 1},
		{"SegmentCache", 1000000, a.cacheElements, 1}} {
		usage := min(c.usage, c.capacity)
		p.metric("doris_be_cache_capacity", "gauge", "", lbl("name", c.name), c.capacity)
		p.metric("doris_be_cache_usage", "gauge", "", lbl("name", c.name), usage)
		p.metric("doris_be_cache_usage_ratio", "gauge", "", lbl("name", c.name), strconv.FormatFloat(float64(usage)/float64(c.capacity), 'f', 6, 64))
		p.metric("doris_be_cache_lookup_count", "counter", "", lbl("name", c.name), lookups)
		p.metric("doris_be_cache_hit_count", "counter", "", lbl("name", c.name), a.hits)
		p.metric("doris_be_cache_hit_ratio", "gauge", "", lbl("name", c.name), strconv.FormatFloat(ratio(a.hits, a.misses), 'f', 6, 64))
	}

	for _, k := range []string{"base", "cumulative", "full"} {
		p.metric("doris_be_compaction_bytes_total", "counter", "", lbl("type", k), a.bytesByKind[k])
	}
	for _, k := range []string{"base", "cumulative", "full"} {
		p.metric("doris_be_compaction_deltas_total", "counter", "", lbl("type", k), a.deltasByKind[k])
	}
	p.metric("doris_be_tablet_base_max_compaction_score", "gauge", "", nil, a.maxBaseScore)
	p.metric("doris_be_tablet_cumulative_max_compaction_score", "gauge", "", nil, a.maxCumScore)
	p.metric("doris_be_disks_compaction_num", "gauge", "", lbl("path", beStoragePath), a.runningTasks)
	p.metric("doris_be_disks_compaction_score", "gauge", "", lbl("path", beStoragePath), a.maxCumScore+a.maxBaseScore)
	p.metric("doris_be_compaction_used_permits", "gauge", "", nil, a.runningTasks*cumulativeThreshold)
	p.metric("doris_be_compaction_waitting_permits", "gauge", "", nil, a.pendingTasks*cumulativeThreshold)

	p.metric("doris_be_query_scan_bytes", "counter", "", nil, a.scanBytes)
	p.metric("doris_be_query_scan_rows", "counter", "", nil, a.scanRows)
	p.metric("doris_be_fragment_instance_count", "gauge", "", nil, a.running)
}

const beStoragePath = "/opt/apache-doris/be/storage"
