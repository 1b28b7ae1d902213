"""Making goldens: record tasks into pending traces, bless reviewed ones, measure their noise."""
