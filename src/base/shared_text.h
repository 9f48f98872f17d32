// SharedText: an immutable string that copies share (a job array's tasks hold one script, not a
// thousand). Reads as a const std::string&; assigning a new text replaces the shared one for
// this copy only. Thread-safe as std::shared_ptr<const std::string> is.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace muster {

class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string text)  // NOLINT: implicit, as the std::string it stands for
      : text_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}
  SharedText(const char* text) : SharedText(std::string(text)) {}  // NOLINT
  SharedText& operator=(std::string text) { return *this = SharedText(std::move(text)); }
  SharedText& operator=(const char* text) { return *this = SharedText(text); }

  const std::string& str() const { return text_ ? *text_ : Empty(); }
  operator const std::string&() const { return str(); }  // NOLINT
  bool empty() const { return !text_; }
  size_t size() const { return text_ ? text_->size() : 0; }
  const char* c_str() const { return str().c_str(); }
  void clear() { text_.reset(); }
  // Whether two copies share one text (not merely equal ones).
  bool SharesWith(const SharedText& other) const { return text_ == other.text_; }

  friend bool operator==(const SharedText& a, const SharedText& b) { return a.text_ == b.text_ || a.str() == b.str(); }
  friend bool operator==(const SharedText& a, std::string_view b) { return a.str() == b; }

 private:
  static const std::string& Empty() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> text_;
};

}  // namespace muster
