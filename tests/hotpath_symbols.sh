#!/bin/sh
# The files whose code runs on application threads inside JVMTI callbacks
# (sampler, trace table, event ring) must never do I/O, talk to nng or wait:
# their object files may not reference any such symbol (the agent's ht_log and
# the viewer's ht_nap_ms among them). Usage: OBJECT...
status=0
for obj in "$@"; do
    [ -f "$obj" ] || { echo "FAIL no object file $obj"; status=1; continue; }
    bad=$(nm -u "$obj" | awk '{print $NF}' | sed 's/@.*//' |
          grep -E '^(nng_.*|ht_log.*|ht_nap_ms|printf|fprintf|vfprintf|dprintf|puts|fputs|fputc|putc|putchar|fwrite|fread|fopen|fdopen|fclose|fflush|perror|__printf_chk|__fprintf_chk|__vfprintf_chk|__dprintf_chk|syslog|open|open64|close|read|write|pread|pwrite|send|sendmsg|sendto|recv|recvmsg|recvfrom|poll|select|epoll_wait|sleep|usleep|nanosleep|clock_nanosleep|pthread_cond_wait|pthread_cond_timedwait|pthread_join|sem_wait)$')
    if [ -n "$bad" ]; then
        echo "FAIL $(basename "$obj") runs on application threads but references: $(echo $bad)"
        status=1
    else
        echo "ok   $(basename "$obj"): no I/O, nng or waiting"
    fi
done
exit $status
