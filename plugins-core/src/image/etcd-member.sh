# A one-member etcd for the AOT trainings, sourced by train-aot.sh (on the host's loopback, for the launchers'
# cluster-ipam training) and train-service.sh (inside the training namespace, whose loopback is its own).
#
#   start_etcd <name> <data dir> <log>   sets etcd_url (empty if no member answered) and etcd_pid
#   stop_etcd                            kills the member, if any
#
# Each attempt picks a port pair at random among 20000-49999 and waits up to 5 s for the member to answer a range
# request (a port already taken makes etcd exit: the next attempt tries another pair, its data dir removed first).
# Needs etcd (Debian's etcd-server, from scripts/setup) and curl; without them etcd_url stays empty.
etcd_pid=
etcd_url=
stop_etcd() {
    if [ -n "$etcd_pid" ]; then kill -9 "$etcd_pid" 2>/dev/null || true; wait "$etcd_pid" 2>/dev/null || true; fi
    etcd_pid=
}
start_etcd() {
    etcd_url=
    command -v etcd >/dev/null 2>&1 && command -v curl >/dev/null 2>&1 || return 0
    for attempt in 1 2 3 4 5; do
        port=$(( 20000 + ($$ * 7 + attempt * 7919 + $(date +%N | sed 's/^0*//;s/^$/0/')) % 30000 ))
        etcd --name "$1" --data-dir "$2" --listen-client-urls "http://127.0.0.1:$port" \
            --advertise-client-urls "http://127.0.0.1:$port" --listen-peer-urls "http://127.0.0.1:$((port + 1))" \
            --initial-advertise-peer-urls "http://127.0.0.1:$((port + 1))" \
            --initial-cluster "$1=http://127.0.0.1:$((port + 1))" --log-level error --unsafe-no-fsync \
            > "$3" 2>&1 &
        etcd_pid=$!
        for _ in $(seq 50); do
            if curl -sf -m 1 -X POST -d '{"key":"AA=="}' "http://127.0.0.1:$port/v3/kv/range" >/dev/null 2>&1; then
                etcd_url=http://127.0.0.1:$port
                return 0
            fi
            kill -0 "$etcd_pid" 2>/dev/null || break
            sleep 0.1
        done
        stop_etcd
        rm -rf "$2"
    done
}
