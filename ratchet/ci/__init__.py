"""Ratchet in a pull request: the sticky PR comment (github) and its Markdown body (comment).

The GitHub Action (action.yml, scripts/action_gate.sh) runs `ratchet check`, then
`ratchet ci comment`; everything that talks to GitHub is here, in Python and tested against a
fake of the REST API, rather than inline shell nobody can test.
"""
