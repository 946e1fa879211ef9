// libyaml (Debian libyaml-dev): the YAML 1.1 parser Yams wraps, used directly
// where Yams's Foundation (and so ICU) is not wanted.
#include <yaml.h>
