#!/usr/bin/python3
"""Writes tests/nn/data/rnn_golden.json: PyTorch's nn.RNN, nn.GRU and nn.LSTM forward and backward on small
shapes, for tests/nn/rnn_test.cc. Every case holds the layer's parameters by their PyTorch names, the input,
the initial states (when given), the outputs, and the gradients of a fixed weighted sum of the outputs with
respect to the input, the initial states and every parameter.

Run from anywhere: /usr/bin/python3 tests/nn/make_rnn_golden.py (Debian's python3-torch).
"""
import json
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))

# name, layer, input_size, hidden_size, constructor kwargs, input shape, initial states given
CASES = [
    ("rnn_tanh", "RNN", 3, 4, dict(), (5, 2, 3), False),
    ("rnn_relu_deep_bidirectional", "RNN", 3, 4,
     dict(nonlinearity="relu", num_layers=2, bidirectional=True), (4, 2, 3), True),
    ("rnn_unbatched", "RNN", 2, 3, dict(), (4, 2), True),
    ("gru", "GRU", 3, 4, dict(), (5, 2, 3), False),
    ("gru_batch_first_deep_bidirectional", "GRU", 3, 2,
     dict(num_layers=2, bidirectional=True, batch_first=True), (2, 3, 3), True),
    ("gru_no_bias", "GRU", 2, 3, dict(bias=False), (3, 2, 2), True),
    ("lstm", "LSTM", 3, 4, dict(), (4, 2, 3), False),
    ("lstm_deep_bidirectional", "LSTM", 3, 2, dict(num_layers=2, bidirectional=True), (3, 2, 3), True),
    ("lstm_batch_first", "LSTM", 2, 3, dict(batch_first=True), (2, 3, 2), True),
    ("lstm_unbatched_no_bias", "LSTM", 2, 3, dict(bias=False), (3, 2), True),
]


def flat(t):
    return t.detach().flatten().tolist()


def case(name, kind, input_size, hidden_size, kwargs, x_shape, with_state, seed):
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    layer = getattr(torch.nn, kind)(input_size, hidden_size, **kwargs).double()
    x = torch.randn(*x_shape, generator=g, dtype=torch.float64, requires_grad=True)
    directions = 2 if kwargs.get("bidirectional") else 1
    stacked = kwargs.get("num_layers", 1) * directions
    unbatched = len(x_shape) == 2
    batch = None if unbatched else x_shape[0 if kwargs.get("batch_first") else 1]
    state_shape = (stacked, hidden_size) if unbatched else (stacked, batch, hidden_size)
    states = []
    if with_state:
        for _ in range(2 if kind == "LSTM" else 1):
            states.append(torch.randn(*state_shape, generator=g, dtype=torch.float64, requires_grad=True))
    if kind == "LSTM":
        out, (h_n, c_n) = layer(x, tuple(states) if states else None)
        results = [out, h_n, c_n]
    else:
        out, h_n = layer(x, states[0] if states else None)
        results = [out, h_n]
    # Fixed random weights make every output element matter to the loss with its own coefficient.
    coefficients = [torch.randn(*r.shape, generator=g, dtype=torch.float64) for r in results]
    loss = sum((r * c).sum() for r, c in zip(results, coefficients))
    loss.backward()
    names = ["output", "h_n", "c_n"]
    return {
        "name": name,
        "layer": kind,
        "input_size": input_size,
        "hidden_size": hidden_size,
        "options": {k: v for k, v in kwargs.items()},
        "x": {"shape": list(x.shape), "values": flat(x), "grad": flat(x.grad)},
        "states": [{"shape": list(s.shape), "values": flat(s), "grad": flat(s.grad)} for s in states],
        "params": [{"name": n, "shape": list(p.shape), "values": flat(p), "grad": flat(p.grad)}
                   for n, p in layer.named_parameters()],
        "results": [{"name": names[i], "shape": list(r.shape), "values": flat(r), "coefficients": flat(c)}
                    for i, (r, c) in enumerate(zip(results, coefficients))],
    }


def main():
    cases = [case(*c, seed=i) for i, c in enumerate(CASES)]
    with open(os.path.join(HERE, "data", "rnn_golden.json"), "w") as f:
        json.dump({"torch": torch.__version__, "cases": cases}, f, indent=0)


if __name__ == "__main__":
    main()
