// The dashboard's files (src/api/ui: index.html, app.js, style.css), compiled into musterctld by
// cmake/embed_ui.cmake: served from the binary, nothing read from disk or fetched at run time.
#pragma once

#include <string_view>
#include <vector>

namespace muster::api {

struct UiAsset {
  std::string_view name;     // "app.js"
  std::string_view content;
};

// Every file of src/api/ui, by name (the generated ui_assets.cc).
const std::vector<UiAsset>& UiAssets();

}  // namespace muster::api
