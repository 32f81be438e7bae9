package sim_test

import (
	"strings"
	"testing"
)

// TestInvertedIndexPhraseDefault: since 2.0.14 / 2.1.5 / 3.0.1 Doris sets
// support_phrase = true whenever a parser is given, so a phrase search on
// PROPERTIES("parser" = "english") runs; with support_phrase = false every
// release refuses it, not only 4.0.
func TestInvertedIndexPhraseDefault(t *testing.T) {
	for _, prof := range []string{"2.1", "3.0", "4.0", "4.1"} {
		t.Run(prof, func(t *testing.T) {
			s, in := startSim(t, prof)
			w := root(t, s, in)
			tbl := "sim_phrase_" + strings.ReplaceAll(prof, ".", "")
			mustExec(t, w, "DROP TABLE IF EXISTS "+tbl)
			mustExec(t, w, "CREATE TABLE "+tbl+` (id INT, a STRING, b STRING,
				INDEX ia (a) USING INVERTED PROPERTIES("parser" = "english"),
				INDEX ib (b) USING INVERTED PROPERTIES("parser" = "english", "support_phrase" = "false"))
				DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1`)
			t.Cleanup(func() { w.Exec("DROP TABLE IF EXISTS " + tbl) })
			mustExec(t, w, "INSERT INTO "+tbl+" VALUES (1, 'quick brown fox', 'quick brown fox')")
			idx := mustQuery(t, w, "SHOW INDEX FROM "+tbl)
			props := map[string]string{}
			for _, r := range idx.rows {
				props[r[idx.col("Key_name")].String] = r[idx.col("Properties")].String
			}
			if !strings.Contains(props["ia"], `"support_phrase" = "true"`) {
				t.Fatalf("ia properties %q lack the support_phrase default", props["ia"])
			}
			if n := mustQuery(t, w, "SELECT COUNT(*) FROM "+tbl+" WHERE a MATCH_PHRASE 'quick brown'").rows[0][0].String; n != "1" {
				t.Fatalf("phrase on the default index matched %s rows", n)
			}
			_, err := w.Exec("SELECT COUNT(*) FROM " + tbl + " WHERE b MATCH_PHRASE 'quick brown'")
			if err == nil || !strings.Contains(err.Error(), "phrase queries require setting support_phrase = true") {
				t.Fatalf("phrase without support_phrase: %v", err)
			}
		})
	}
}
