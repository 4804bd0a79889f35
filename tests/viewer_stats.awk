# viewer_stats.awk - an independent reading of a qnn-profile-viewer text log for test_qnn_cli.sh:
# the lines of the blocks other than the executes (Init, Compose Graphs, Finalize, De-Init, Create
# From Binary, Execute Stats (Average/Min/Max/Overall)) as level|name|value|unit, in file order.
/^(--- )?Init Stats:/ { lvl = "init"; next }
/^(--- )?Compose Graphs Stats:/ { lvl = "compose"; next }
/^(--- )?Finalize Stats:/ { lvl = "finalize"; next }
/^(--- )?De-Init Stats:/ { lvl = "deinit"; next }
/^Create From Binary Stats:/ { lvl = "init"; next }
/^Execute Stats \([A-Za-z]+\):/ { s = $0; sub(/^Execute Stats \(/, "", s); sub(/\):.*/, "", s); lvl = tolower(s); next }
/^Execute Stat|^Execute Stats: *$|^Printing/ { lvl = ""; next }
lvl == "" { next }
/^ +NetRun IPS: +[0-9.]+ inf\/sec/ { print lvl "|NetRun IPS|" $3 "|inf/s"; next }
/^ +NetRun: +[0-9]+ us/ { print lvl "|NetRun|" $2 "|us"; next }
/^ +Backend \(.*\): [0-9.]+ [a-z]+$/ { s = $0; sub(/^ +Backend \(/, "", s); n = split(s, a, " "); v = a[n - 1]; u = a[n];
    sub(/\): [0-9.]+ [a-z]+$/, "", s); print lvl "|" s "|" v "|" u; next }
/^[^ ].* : [0-9.]+ +[a-z]+$/ { s = $0; n = split(s, a, " "); v = a[n - 1]; u = a[n]; sub(/ : [0-9.]+ +[a-z]+$/, "", s); print lvl "|" s "|" v "|" u; next }
