"""The review page: golden and replay side by side as one self-contained HTML file, optionally served.

collect gathers what to show (pending traces, a check's verdict, the bench's label queue), align
lines tool calls up the way Level 0 diffed them, page renders HTML, actions apply a reviewer's
click through the same functions as `ratchet bless` and `ratchet bench label`, serve puts it on
loopback.
"""
