# kforge_warnings: the warning flags every host target of the project compiles with.
add_library(kforge_warnings INTERFACE)
target_compile_options(kforge_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -pedantic -Wno-unused-parameter>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${KFORGE_WERROR}>>:-Werror>)
if(KFORGE_SANITIZE)
  target_compile_options(kforge_warnings INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(kforge_warnings INTERFACE -fsanitize=address,undefined)
endif()
